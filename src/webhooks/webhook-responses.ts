import { z } from 'zod';
import { nullableTimestamp, timestamp, uuid } from '../shared/response-fields.js';
import { WEBHOOK_EVENTS } from './webhook-events.js';

/** A webhook as an administrator sees it: never the secret (shown once, at creation or rotation). */
export const webhookSchema = z
  .object({
    id: uuid,
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    enabled: z.boolean(),
    description: z.string().nullable(),
    disabledReason: z.string().nullable().meta({ description: 'Why it was disabled by the service (a 410 answer); null otherwise' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Webhook' });

const secret = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]+=*$/)
  .meta({ description: 'The signing secret (whsec_ and base64 of 32 bytes), shown only in this answer' });

/** data of POST /api/admin/webhooks (and of a PATCH with rotateSecret). */
export const createdWebhookData = z.object({ webhook: webhookSchema, secret });
export const webhookData = z.object({ webhook: webhookSchema, secret: secret.optional() });

/** One delivery attempt of GET /api/admin/webhooks/:id/deliveries. */
export const webhookAttemptSchema = z
  .object({
    id: z.string(),
    deliveryId: uuid.meta({ description: 'The delivery; its webhook-id header is msg_ and this id, the same on every attempt' }),
    eventId: z.string().meta({ description: 'The outbox event id' }),
    eventType: z.string(),
    attempt: z.number().int().min(1),
    deliveryStatus: z
      .enum(['pending', 'delivered', 'failed'])
      .meta({ description: 'The delivery now: pending (a retry is due), delivered (a 2xx), failed (410 or retries used up)' }),
    statusCode: z.number().int().nullable().meta({ description: "The receiver's HTTP status; null when there was no answer" }),
    error: z.string().nullable().meta({ description: 'Why there was no answer (timeout, refused address, connection error)' }),
    durationMs: z.number().int().min(0),
    attemptedAt: timestamp,
    nextRetryAt: nullableTimestamp.meta({ description: 'When this attempt scheduled the next one; null: none' }),
  })
  .meta({ id: 'WebhookAttempt' });

export type WebhookView = z.input<typeof webhookSchema>;
export type CreatedWebhookData = z.input<typeof createdWebhookData>;
export type WebhookData = z.input<typeof webhookData>;
export type WebhookAttemptView = z.input<typeof webhookAttemptSchema>;
