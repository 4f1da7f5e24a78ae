import { z } from 'zod';
import { changeBody } from '../shared/validation.js';
import { WEBHOOK_EVENTS } from './webhook-events.js';

const EVENTS_MESSAGE = `events musí byť zoznam udalostí: ${WEBHOOK_EVENTS.join(', ')}`;

const url = z
  .string({ error: 'url musí byť text' })
  .trim()
  .min(1, 'url je povinná')
  .max(2000, 'url môže mať najviac 2000 znakov')
  .meta({ description: 'The receiver: http:// or https://; a private or local address only when WEBHOOK_ALLOWED_PRIVATE_HOSTS lists it' });
const events = z
  .array(z.enum(WEBHOOK_EVENTS, { error: EVENTS_MESSAGE }), { error: EVENTS_MESSAGE })
  .min(1, 'Webhook potrebuje aspoň jednu udalosť')
  .max(WEBHOOK_EVENTS.length * 2, EVENTS_MESSAGE)
  .meta({ description: `Event types delivered: ${WEBHOOK_EVENTS.join(', ')}` });
const description = z
  .string({ error: 'Popis musí byť text' })
  .trim()
  .max(500, 'Popis môže mať najviac 500 znakov')
  .nullable()
  .meta({ description: 'What the receiver is (e.g. "ERP"), at most 500 characters' });

/** POST /api/admin/webhooks. */
export const createWebhookBody = z.strictObject({ url, events, description: description.optional() });

/** PATCH /api/admin/webhooks/:id: at least one field. */
export const updateWebhookBody = changeBody(
  z.strictObject({
    url: url.optional(),
    events: events.optional(),
    enabled: z.boolean({ error: 'enabled musí byť true alebo false' }).optional().meta({ description: 'false: nothing is delivered; true again: events from now on' }),
    description: description.optional(),
    rotateSecret: z
      .literal(true, { error: 'rotateSecret môže byť len true' })
      .optional()
      .meta({ description: 'true: a new secret, in this answer only; the old one stops at once' }),
  }),
  'Zadajte aspoň jednu zmenu',
);
