import { z } from 'zod';
import { WEBHOOK_EVENTS } from '../webhooks/webhook-events.js';
import { createdWebhookData, webhookAttemptSchema, webhookData, webhookSchema } from '../webhooks/webhook-responses.js';
import { createWebhookBody, updateWebhookBody } from '../webhooks/webhook-schemas.js';
import { idParams, paginationQuery } from '../shared/validation.js';
import type { AreaDoc } from './route-doc.js';

/** Signed webhooks (issue 48): administrators register receivers of outbox events. */
export const webhookArea: AreaDoc = {
  tag: 'webhooks',
  description:
    'Signed webhooks following Standard Webhooks (standardwebhooks.com): POST {type, timestamp, data} with webhook-id, ' +
    'webhook-timestamp and webhook-signature (v1,<base64 HMAC-SHA256 of "id.timestamp.body">). Retried per ' +
    'WEBHOOK_RETRY_SCHEDULE; 410 disables the webhook (docs/api.md "Webhooks").',
  routes: [
    {
      method: 'post',
      path: '/api/admin/webhooks',
      operationId: 'createWebhook',
      auth: 'admin',
      summary: 'Register a webhook: the signing secret is in this answer only',
      description:
        'url: http or https; a literal private, loopback, link-local or unspecified address is a 400 unless ' +
        'WEBHOOK_ALLOWED_PRIVATE_HOSTS lists it (resolved names are checked again at every delivery). ' +
        'An event type outside the allowed list: 400 naming them. Events committed from now on are delivered.',
      body: createWebhookBody,
      success: { status: 201, description: 'data.webhook and data.secret (whsec_..., once)', body: 'data', data: createdWebhookData },
    },
    {
      method: 'get',
      path: '/api/admin/webhooks',
      operationId: 'listWebhooks',
      auth: 'admin',
      summary: 'Every webhook, newest first (never a secret)',
      query: paginationQuery,
      success: { status: 200, description: 'data.items and data.pagination', body: 'list', item: webhookSchema },
    },
    {
      method: 'get',
      path: '/api/admin/webhooks/:id',
      operationId: 'getWebhook',
      auth: 'admin',
      summary: 'One webhook (never its secret)',
      params: idParams,
      success: { status: 200, description: 'data.webhook', body: 'data', data: webhookData },
    },
    {
      method: 'patch',
      path: '/api/admin/webhooks/:id',
      operationId: 'updateWebhook',
      auth: 'admin',
      summary: 'Change url, events, enabled or description; rotateSecret: true answers a new secret once',
      description: 'Enabling again or changing the events delivers events from now on (nothing older is replayed).',
      params: idParams,
      body: updateWebhookBody,
      success: { status: 200, description: 'data.webhook, and data.secret after rotateSecret', body: 'data', data: webhookData },
    },
    {
      method: 'delete',
      path: '/api/admin/webhooks/:id',
      operationId: 'deleteWebhook',
      auth: 'admin',
      summary: 'Delete a webhook and its deliveries',
      params: idParams,
      success: { status: 200, description: 'No data', body: 'message' },
    },
    {
      method: 'get',
      path: '/api/admin/webhooks/:id/deliveries',
      operationId: 'listWebhookAttempts',
      auth: 'admin',
      summary: 'Delivery attempts of one webhook, newest first',
      description: 'Each attempt: the event, its status code or error, the duration, when, and the retry it scheduled.',
      params: idParams,
      query: paginationQuery,
      success: { status: 200, description: 'data.items and data.pagination', body: 'list', item: webhookAttemptSchema },
    },
  ],
};

const webhookPayload = z
  .object({
    type: z.enum(WEBHOOK_EVENTS),
    timestamp: z.iso.datetime({ offset: true }).meta({ description: 'When the event was written to the outbox' }),
    data: z.record(z.string(), z.unknown()).meta({ description: 'The live event of the same type (GET /api/events): ids and the email account, never content' }),
  })
  .meta({ id: 'WebhookPayload' });

const header = (name: string, description: string) => ({ name, in: 'header' as const, required: true, description, schema: { type: 'string' as const } });

/** The OpenAPI `webhooks` entry: what a receiver gets (the payload of every delivery). */
export const webhookCallbacks = {
  crmEvent: {
    post: {
      operationId: 'receiveWebhookEvent',
      summary: 'An outbox event delivered to a registered webhook',
      description:
        'Verify before trusting: HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>" keyed with the base64-decoded part ' +
        'of the secret after whsec_, base64, must equal a v1, entry of webhook-signature; refuse old timestamps. ' +
        'The webhook-id is the same on every retry of one event: deduplicate on it. Answer 2xx quickly; 410 disables the webhook.',
      tags: ['webhooks'],
      // Sent by the CRM: the receiver authenticates it by the signature, not by a scheme of this API.
      security: [],
      parameters: [
        header('webhook-id', 'msg_ and the delivery id: stable per event and webhook, the same on every retry'),
        header('webhook-timestamp', 'Unix seconds of this attempt'),
        header('webhook-signature', 'v1,<base64 HMAC-SHA256 of "id.timestamp.body">'),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: webhookPayload } } },
      responses: { '200': { description: 'Any 2xx: delivered, never sent again' }, '410': { description: 'Gone: the webhook is disabled' } },
    },
  },
};
