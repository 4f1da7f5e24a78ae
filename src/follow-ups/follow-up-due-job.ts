import type { Transactions } from '../db/transactions.js';
import type { Logger } from '../logging/logger.js';
import type { FollowUpRepository } from './follow-up-repository.js';

/** Follow-ups claimed per transaction: short transactions, and a backlog is worked off batch by batch. */
const BATCH = 500;

/**
 * The due check of every `serve` (src/app/background-jobs.ts, every FOLLOW_UP_CHECK_SECONDS): claims the
 * follow-ups whose time came and writes a follow_up.due event for each into the events outbox, in
 * the same transaction (FollowUpRepository.claimDue). Instances running it at the same moment claim
 * disjoint rows (SKIP LOCKED), so each follow-up is announced once; every API instance's hub reads
 * the outbox and hands the event to the owner's streams, wherever they are connected.
 */
export class FollowUpDueJob {
  constructor(
    private readonly followUps: FollowUpRepository,
    private readonly transactions: Transactions,
    private readonly logger?: Logger,
  ) {}

  /** One check: claims batches until none is full; answers what was claimed and announced. */
  async run(): Promise<{ claimed: number; sent: number }> {
    const total = { claimed: 0, sent: 0 };
    for (;;) {
      const got = await this.transactions.run((tx) => this.followUps.claimDue(BATCH, tx));
      total.claimed += got.claimed;
      total.sent += got.sent;
      if (got.claimed < BATCH) break;
    }
    if (total.claimed > 0) this.logger?.debug('follow-ups came due', total);
    return total;
  }

  backlog() {
    return this.followUps.backlog();
  }
}
