import type { Transactions } from '../db/transactions.js';
import type { Logger } from '../logging/logger.js';
import type { TaskRepository } from './task-repository.js';

/** Tasks claimed per transaction: short transactions, and a backlog is worked off batch by batch. */
const BATCH = 500;

/**
 * The tasks' due check of every `serve` (src/app/server.ts, every FOLLOW_UP_CHECK_SECONDS), in the
 * shape of the follow-ups' (FollowUpDueJob, ADR 0119): claims the open tasks whose time came and
 * writes a task.due event for each into the events outbox, in the same transaction
 * (TaskRepository.claimDue, task-due-query.ts). Instances running it at the same moment claim
 * disjoint rows (SKIP LOCKED), so each task is announced once; every API instance's hub hands the
 * event to the assignee's streams, and the webhook job copies it to the webhooks that want it.
 */
export class TaskDueJob {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly transactions: Transactions,
    private readonly logger?: Logger,
  ) {}

  /** One check: claims batches until none is full; answers what was claimed and announced. */
  async run(): Promise<{ claimed: number; sent: number }> {
    const total = { claimed: 0, sent: 0 };
    for (;;) {
      const got = await this.transactions.run((tx) => this.tasks.claimDue(BATCH, tx));
      total.claimed += got.claimed;
      total.sent += got.sent;
      if (got.claimed < BATCH) break;
    }
    if (total.claimed > 0) this.logger?.debug('tasks came due', total);
    return total;
  }

  /** Open tasks due and not yet announced (for the jobs list's metrics and doctor, issue 51). */
  backlog() {
    return this.tasks.backlog();
  }
}
