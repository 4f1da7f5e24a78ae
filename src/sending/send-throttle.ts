import { isOverLimit, type ThrottleCounter, type ThrottleRepository } from '../auth/throttle-repository.js';
import { RateLimitError } from '../errors/app-errors.js';
import type { OutgoingMessage } from './outgoing-message.js';

export const SEND_THROTTLED_MESSAGE = 'Odoslali ste príliš veľa emailov za krátky čas. Skúste to znova neskôr.';
export const UPLOAD_BUDGET_MESSAGE = 'Odoslali ste príliš veľký objem príloh za krátky čas. Skúste to znova neskôr.';

/** The upload budget is counted in blocks of this many bytes (one database write per block). */
export const UPLOAD_BLOCK_BYTES = 1024 * 1024;

/**
 * Emails per user per window, counted in PostgreSQL (rate_limits, like the login throttle) so that
 * every instance behind a load balancer counts the same sends. A send that sent nothing and
 * uploaded nothing gives its point back.
 */
export class SendThrottle {
  private readonly perUser: ThrottleCounter;

  constructor(counters: Pick<ThrottleRepository, 'counter'>, limit: { points: number; durationSeconds: number }) {
    this.perUser = counters.counter('send_user', limit);
  }

  /** Counts one send; throws RateLimitError (429, Retry-After) when the user's sends are used up. */
  async take(userId: string): Promise<void> {
    await consume(this.perUser, userId, 1, SEND_THROTTLED_MESSAGE);
  }

  async giveBack(userId: string): Promise<void> {
    await this.perUser.reward(userId);
  }
}

/**
 * Attachment bytes per user per window that go to the mail server (issue 26: 70 refused forms with a
 * 9 MB file each filled its spool with 600 MB in 22 s). Spent as the bytes pass, in 1 MiB blocks, and
 * never given back, whatever becomes of the send: the mail server holds the uploaded blobs anyway.
 */
export class UploadBudget {
  private readonly perUser: ThrottleCounter;

  constructor(counters: Pick<ThrottleRepository, 'counter'>, limit: { megabytes: number; durationSeconds: number }) {
    this.perUser = counters.counter('send_upload_mb', { points: limit.megabytes, durationSeconds: limit.durationSeconds });
  }

  /** Called with the message's attachment bytes so far; spends the blocks not yet spent (429 beyond the budget). */
  async reserve(message: OutgoingMessage, bytes: number): Promise<void> {
    message.uploadedBytes = Math.max(message.uploadedBytes, bytes);
    const blocks = Math.ceil(bytes / UPLOAD_BLOCK_BYTES) - message.uploadBlocks;
    if (blocks <= 0) return;
    message.uploadBlocks += blocks;
    await consume(this.perUser, message.userId, blocks, UPLOAD_BUDGET_MESSAGE);
  }
}

async function consume(counter: ThrottleCounter, key: string, points: number, message: string): Promise<void> {
  try {
    await counter.consume(key, points);
  } catch (err) {
    if (isOverLimit(err)) throw new RateLimitError(message, Math.max(1, err.msBeforeNext / 1000));
    throw err;
  }
}
