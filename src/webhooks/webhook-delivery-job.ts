import type { SecretBox } from '../crypto/secret-box.js';
import type { Transactions } from '../db/transactions.js';
import type { Logger } from '../logging/logger.js';
import type { DeliveryRepository, LeasedDelivery } from './delivery-repository.js';
import { signWebhook } from './webhook-signature.js';
import type { WebhookSender } from './webhook-sender.js';
import { webhookSecretContext } from './webhook-service.js';
import type { WebhookRepository } from './webhook-repository.js';

/** Events copied per statement and deliveries leased per round. */
const CLAIM_BATCH = 1000;
const LEASE_BATCH = 50;
/** Longer than the receiver's timeout (10 s) and the lookup: a live lease is never taken over. */
const LEASE_SECONDS = 60;
/** Finished deliveries are kept this long for the deliveries list. */
const KEEP_FINISHED_DAYS = 30;
/** Calls open to one webhook from this instance, above which its rows wait: a slow receiver holds only its own. */
const PER_WEBHOOK_IN_FLIGHT = 20;
/**
 * Calls open at once from this instance, across runs. A bound on calls open, not on calls started per
 * run: 200 a run capped the instance at 200 attempts a second however fast the receivers answered,
 * and refused calls with their retries (a receiver that is gone) used that up (issue 48).
 */
const MAX_IN_FLIGHT = 200;
/** A run keeps leasing while there is due work for about this long; the next tick's run goes on. */
const LEASING_MS = 1000;

export interface WebhookDeliveryDeps {
  webhooks: WebhookRepository;
  deliveries: DeliveryRepository;
  transactions: Transactions;
  secretBox: SecretBox;
  sender: WebhookSender;
  /** WEBHOOK_RETRY_SCHEDULE: seconds before the 2nd, 3rd, ... attempt. */
  retrySchedule: number[];
  logger?: Logger;
  /** MAX_IN_FLIGHT and LEASING_MS unless given (tests reach the bound with a few rows). */
  limits?: { maxInFlight?: number; leasingMs?: number };
}

export interface DeliveryRound {
  claimed: number;
  attempted: number;
  delivered: number;
}

/**
 * The webhook job of every `serve` (src/app/background-jobs.ts, every second; docs/adr/0134-webhooks.md):
 * copies new outbox events into the delivery queue, leases the due deliveries (SKIP LOCKED, so
 * instances share the work and each attempt is made by one), POSTs them outside any transaction,
 * all of a round at once, then records each answer. A run starts every second even while earlier
 * ones wait for slow receivers (ADR 0145, `join`): a webhook with PER_WEBHOOK_IN_FLIGHT calls open
 * from this instance is left out of the new leases, so a slow receiver holds only its own calls
 * (bench/webhooks-bench.ts: the fast receivers' p50 stays at the baseline's beside one answering in
 * 5 s, and beside five that are gone as well). The calls leased between two checks of that count can
 * go past it by one lease (LEASE_BATCH): a bound, not an exact cap.
 */
export class WebhookDeliveryJob {
  private prunedAt = 0;
  /** Calls open per webhook from this instance, across the runs in progress. */
  private readonly open = new Map<string, number>();

  constructor(private readonly deps: WebhookDeliveryDeps) {}

  /** Answers once the attempts it started are recorded. */
  async run(): Promise<DeliveryRound> {
    const { deliveries } = this.deps;
    const round: DeliveryRound = { claimed: 0, attempted: 0, delivered: 0 };
    // Once an hour per instance: concurrent deletes of the same old rows are harmless.
    if (Date.now() - this.prunedAt > 3_600_000) {
      this.prunedAt = Date.now();
      await deliveries.pruneFinished(KEEP_FINISHED_DAYS);
    }
    for (;;) {
      const claimed = await deliveries.claimNew(CLAIM_BATCH);
      round.claimed += claimed;
      if (claimed < CLAIM_BATCH) break;
    }
    const started: Array<Promise<boolean>> = [];
    const maxInFlight = this.deps.limits?.maxInFlight ?? MAX_IN_FLIGHT;
    const leasingUntil = Date.now() + (this.deps.limits?.leasingMs ?? LEASING_MS);
    for (let openCalls = this.openCalls(); openCalls < maxInFlight; openCalls = this.openCalls()) {
      const busy = [...this.open].filter(([, n]) => n >= PER_WEBHOOK_IN_FLIGHT).map(([id]) => id);
      const want = Math.min(LEASE_BATCH, maxInFlight - openCalls);
      const leased = await deliveries.lease(want, LEASE_SECONDS, busy);
      for (const d of leased) started.push(this.tracked(d));
      // Fewer than asked: nothing more is due now. Past the leasing time: the next tick's run goes on.
      if (leased.length < want || Date.now() >= leasingUntil) break;
    }
    const results = await Promise.all(started);
    round.attempted = started.length;
    round.delivered = results.filter(Boolean).length;
    if (round.attempted > 0) this.deps.logger?.debug('webhook deliveries', { ...round });
    return round;
  }

  /** Deliveries due and not leased, for the metrics and doctor (ADR 0145). */
  backlog() {
    return this.deps.deliveries.backlog();
  }

  /** For the items counters of the job runner: delivered, and attempts that failed (to be retried or given up). */
  static roundOf(r: DeliveryRound) {
    return { done: r.delivered, failed: r.attempted - r.delivered };
  }

  /** Calls open from this instance, across the runs in progress. */
  private openCalls(): number {
    let n = 0;
    for (const calls of this.open.values()) n += calls;
    return n;
  }

  private async tracked(d: LeasedDelivery): Promise<boolean> {
    this.open.set(d.webhookId, (this.open.get(d.webhookId) ?? 0) + 1);
    try {
      return await this.attempt(d);
    } finally {
      const left = (this.open.get(d.webhookId) ?? 1) - 1;
      if (left > 0) this.open.set(d.webhookId, left);
      else this.open.delete(d.webhookId);
    }
  }

  /** One attempt; answers whether it was delivered. Never throws: a failure is a recorded attempt. */
  private async attempt(d: LeasedDelivery): Promise<boolean> {
    const { secretBox, sender, retrySchedule, transactions, deliveries, webhooks } = this.deps;
    const messageId = `msg_${d.id}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ type: d.eventType, timestamp: d.eventCreatedAt.toISOString(), data: d.payload });
    let result;
    try {
      const secret = secretBox.decrypt(d.secretSealed, webhookSecretContext(d.webhookId));
      const headers = { 'webhook-id': messageId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signWebhook(secret, messageId, timestamp, body) };
      result = await sender.send({ url: d.url, headers, body });
    } catch {
      // The secret does not open (a key rotated out): recorded like a failed call, never the secret.
      result = { statusCode: null, error: 'secret could not be opened', durationMs: 0 };
    }
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const gone = result.statusCode === 410;
    const wait = retrySchedule[d.attempt - 1];
    const status = ok ? 'delivered' : gone || wait === undefined ? 'failed' : 'pending';
    const nextRetryAt = status === 'pending' ? new Date(Date.now() + wait * 1000) : null;
    try {
      await transactions.run(async (tx) => {
        await deliveries.record({ deliveryId: d.id, webhookId: d.webhookId, attempt: d.attempt, status, nextRetryAt, ...result }, tx);
        if (gone) await webhooks.disable(d.webhookId, 'receiver answered 410 Gone', tx);
      });
    } catch (err) {
      // The lease runs out and the attempt is made again: at least once, with the same webhook-id.
      this.deps.logger?.error('webhook attempt could not be recorded', { deliveryId: d.id, err });
    }
    return ok;
  }
}
