import crypto from 'node:crypto';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { Transactions } from '../db/transactions.js';
import { NotFoundError, ValidationError } from '../errors/app-errors.js';
import type { Page, PageRequest } from '../shared/pagination.js';
import type { AttemptRecord, DeliveryRepository } from './delivery-repository.js';
import { urlProblem, type PrivateAllowList } from './webhook-address.js';
import type { WebhookRecord, WebhookRepository } from './webhook-repository.js';
import { newWebhookSecret } from './webhook-signature.js';

const WEBHOOK_NOT_FOUND = 'Webhook neexistuje';

/** The additional data a webhook's secret is sealed with: its own row (a copied value does not open elsewhere). */
export function webhookSecretContext(webhookId: string): string {
  return `webhook:${webhookId}`;
}

export interface WebhookServiceDeps {
  webhooks: WebhookRepository;
  deliveries: DeliveryRepository;
  transactions: Transactions;
  audit: AuditService;
  secretBox: SecretBox;
  allow: PrivateAllowList;
}

export interface NewWebhook {
  url: string;
  events: string[];
  description?: string | null;
}

export interface WebhookPatch {
  url?: string;
  events?: string[];
  enabled?: boolean;
  description?: string | null;
  rotateSecret?: true;
}

/**
 * Webhooks of the administrators (issue 48): the secret exists in clear only in the answer to the
 * creation or a rotation; the row holds it sealed (the mail passwords' SecretBox), the audit never.
 */
export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  async create(input: NewWebhook, actor: { id: string; username: string }, meta: RequestMeta): Promise<{ webhook: WebhookRecord; secret: string }> {
    this.checkUrl(input.url);
    const id = crypto.randomUUID();
    const secret = newWebhookSecret();
    const events = [...new Set(input.events)].sort();
    const webhook = await this.deps.transactions.run(async (tx) => {
      const created = await this.deps.webhooks.insert(
        { id, url: input.url, events, description: input.description ?? null, secretSealed: this.deps.secretBox.encrypt(secret, webhookSecretContext(id)) },
        tx,
      );
      await this.deps.audit.record(
        { action: AuditActions.webhookCreated, userId: actor.id, username: actor.username, details: { webhookId: id, url: created.url, events } },
        meta,
        tx,
      );
      return created;
    });
    return { webhook, secret };
  }

  list(page: PageRequest): Promise<Page<WebhookRecord>> {
    return this.deps.webhooks.list(page);
  }

  async get(id: string): Promise<WebhookRecord> {
    const found = await this.deps.webhooks.findById(id);
    if (!found) throw new NotFoundError(WEBHOOK_NOT_FOUND);
    return found;
  }

  async update(id: string, patch: WebhookPatch, actor: { id: string; username: string }, meta: RequestMeta): Promise<{ webhook: WebhookRecord; secret?: string }> {
    if (patch.url !== undefined) this.checkUrl(patch.url);
    const secret = patch.rotateSecret ? newWebhookSecret() : undefined;
    const events = patch.events ? [...new Set(patch.events)].sort() : undefined;
    const webhook = await this.deps.transactions.run(async (tx) => {
      const changed = await this.deps.webhooks.update(
        id,
        {
          url: patch.url,
          events,
          enabled: patch.enabled,
          description: patch.description,
          secretSealed: secret ? this.deps.secretBox.encrypt(secret, webhookSecretContext(id)) : undefined,
        },
        tx,
      );
      if (!changed) throw new NotFoundError(WEBHOOK_NOT_FOUND);
      const fields = Object.keys(patch).filter((k) => k !== 'rotateSecret' && patch[k as keyof WebhookPatch] !== undefined);
      await this.deps.audit.record(
        { action: AuditActions.webhookUpdated, userId: actor.id, username: actor.username, details: { webhookId: id, fields, secretRotated: secret !== undefined } },
        meta,
        tx,
      );
      return changed;
    });
    return secret ? { webhook, secret } : { webhook };
  }

  async delete(id: string, actor: { id: string; username: string }, meta: RequestMeta): Promise<void> {
    await this.deps.transactions.run(async (tx) => {
      const gone = await this.deps.webhooks.delete(id, tx);
      if (!gone) throw new NotFoundError(WEBHOOK_NOT_FOUND);
      await this.deps.audit.record({ action: AuditActions.webhookDeleted, userId: actor.id, username: actor.username, details: { webhookId: id, url: gone.url } }, meta, tx);
    });
  }

  async attempts(id: string, page: PageRequest): Promise<Page<AttemptRecord>> {
    await this.get(id);
    return this.deps.deliveries.attempts(id, page);
  }

  private checkUrl(url: string): void {
    const problem = urlProblem(url, this.deps.allow);
    if (problem) throw new ValidationError(problem, [{ field: 'url', message: problem }]);
  }
}
