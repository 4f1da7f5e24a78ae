import type { ThrottleCounter } from '../auth/throttle-repository.js';
import { consumeAll } from '../auth/throttle-repository.js';
import type { UploadLimits } from '../config/config.js';
import type { Tx } from '../db/transactions.js';
import { InsufficientStorageError, QuotaExceededError, RateLimitError } from '../errors/app-errors.js';
import type { TimesheetRepository } from './timesheet-repository.js';

export const UPLOADS_THROTTLED_MESSAGE = 'Príliš veľa nahratých výkazov za krátky čas. Skúste to znova neskôr.';

export interface UploadAllowanceDeps {
  timesheets: TimesheetRepository;
  /** Free bytes where files are stored; undefined when the store cannot tell (an object store). */
  freeSpace: () => Promise<number | undefined>;
  /** Successful uploads per user, `limits.uploadsPerHour` per hour (rate_limits, shared by all instances). */
  rate: ThrottleCounter;
  limits: UploadLimits;
}

/**
 * What one user may still upload. A member must not be able to fill the disk, which also holds the
 * embedded database: a quota of files and bytes per user, a rate of uploads per hour, and a reserve
 * of free space below which nobody uploads (507).
 *
 * `admit` runs before a byte is read; the upload's point of the rate is reserved then (one atomic
 * increment in rate_limits: a parallel burst cannot slip past) and given back when the upload is
 * refused at the door (429), and by `release` when an admitted upload fails or is abandoned, so only
 * stored files count. A reservation of an upload in flight counts until it ends: a burst may see 429
 * while earlier uploads are still arriving, never more stored uploads than the limit. The quota is checked again, exactly and under a lock,
 * in the transaction that records the file (`assertWithinQuota`).
 */
export class UploadAllowance {
  constructor(private readonly deps: UploadAllowanceDeps) {}

  async admit(userId: string): Promise<void> {
    await this.assertFreeSpace();
    await this.assertQuota(userId, 0);
    try {
      await consumeAll([() => this.deps.rate.consume(userId)], UPLOADS_THROTTLED_MESSAGE);
    } catch (err) {
      // The counter takes the point even when it refuses (rate-limiter-flexible counts past the limit):
      // a refused upload gives it back, or a burst of refusals would hold the user at 429 for the hour.
      if (err instanceof RateLimitError) await this.deps.rate.reward(userId);
      throw err;
    }
  }

  /** The admitted upload failed: it does not count against the rate. */
  async release(userId: string): Promise<void> {
    await this.deps.rate.reward(userId);
  }

  /** Inside the recording transaction: one upload of a user at a time is counted against their quota. */
  async assertWithinQuota(userId: string, size: number, tx: Tx): Promise<void> {
    await this.deps.timesheets.lockUploadsOf(userId, tx);
    await this.assertQuota(userId, size, tx);
  }

  private async assertQuota(userId: string, size: number, tx?: Tx): Promise<void> {
    const { quotaFiles, quotaBytes } = this.deps.limits;
    const usage = await this.deps.timesheets.usageOf(userId, tx);
    if (usage.files + 1 > quotaFiles) {
      throw new QuotaExceededError(`Dosiahli ste limit počtu výkazov (${quotaFiles}). Vymažte staršie výkazy alebo kontaktujte administrátora.`);
    }
    // Before the file arrives (size 0) only a full quota refuses; its real size is checked once stored.
    if (usage.bytes + size > quotaBytes || (size === 0 && usage.bytes >= quotaBytes)) {
      throw new QuotaExceededError(`Dosiahli ste limit úložiska výkazov (${formatMegabytes(quotaBytes)} MB). Vymažte staršie výkazy alebo kontaktujte administrátora.`);
    }
  }

  /** The reserve is far larger than one upload (10 MB), so the file's own size is not counted against it. */
  private async assertFreeSpace(): Promise<void> {
    const free = await this.deps.freeSpace();
    if (free !== undefined && free < this.deps.limits.reserveBytes) throw new InsufficientStorageError();
  }
}

function formatMegabytes(bytes: number): string {
  return String(Math.round(bytes / (1024 * 1024)));
}
