import type { Logger } from '../logging/logger.js';
import type { OutboxRepository } from './outbox-repository.js';

/** How long events are kept for Last-Event-ID (docs/api.md "Live updates"), and how many at most. */
export const OUTBOX_KEEP_SECONDS = 600;
export const OUTBOX_KEEP_EVENTS = 10_000;

/**
 * Keeps the outbox short. Every `serve` runs it once a minute (API instances and sync workers alike:
 * a worker alone still produces events); concurrent runs delete the same old rows, which is harmless.
 */
export class OutboxPruner {
  constructor(
    private readonly outbox: OutboxRepository,
    private readonly logger?: Logger,
  ) {}

  async run(): Promise<number> {
    const deleted = await this.outbox.prune(OUTBOX_KEEP_SECONDS, OUTBOX_KEEP_EVENTS);
    if (deleted > 0) this.logger?.debug('events outbox pruned', { deleted });
    return deleted;
  }

  backlog() {
    return this.outbox.backlog(OUTBOX_KEEP_SECONDS);
  }
}
