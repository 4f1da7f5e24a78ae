import type { AttemptRecord } from './delivery-repository.js';
import type { WebhookRecord } from './webhook-repository.js';
import type { WebhookAttemptView, WebhookView } from './webhook-responses.js';
import type { WebhookEvent } from './webhook-events.js';

/** Never the secret: the record does not hold it. */
export function presentWebhook(w: WebhookRecord): WebhookView {
  return {
    id: w.id,
    url: w.url,
    events: w.events as WebhookEvent[],
    enabled: w.enabled,
    description: w.description,
    disabledReason: w.disabledReason,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
}

export function presentAttempt(a: AttemptRecord): WebhookAttemptView {
  return { ...a, deliveryStatus: a.deliveryStatus as WebhookAttemptView['deliveryStatus'] };
}
