import type { Logger } from '../logging/logger.js';
import type { OutboxEvent } from './event-types.js';
import type { OutboxRepository } from './outbox-repository.js';

const PAGE = 1000;
/** While a gap waits for the transaction that holds it, the outbox is read again this often. */
const GAP_RETRY_MS = 20;
/**
 * A gap still open after this long is passed (a transaction holding events that long is not one of
 * ours: the sync commits page by page); the streams are told to resync, since its events may
 * still appear below the cursor.
 */
const GAP_GIVE_UP_MS = 5_000;
/**
 * Without a notification the outbox is read this often anyway. A sync batch sends its wake-up after
 * its commit (migration 0071): a worker that dies between the two would otherwise leave its events
 * waiting for the next notification of anyone.
 */
const SAFETY_READ_MS = 5_000;

export interface FollowerTarget {
  dispatch(event: OutboxEvent): void;
  /** Events may have been missed (pruned while disconnected, a gap given up): every stream reloads. */
  resyncAll(reason: 'outbox_gap' | 'window_exceeded'): void;
}

/**
 * Reads the outbox in id order and hands each event to the hub exactly once, in that order. Its rows
 * are written by database triggers (crm_events_emails, crm_events_contacts, crm_events_members,
 * crm_events_sync_states: migrations 0021 and 0030; the list in event-types.ts) and by the follow-up job.
 *
 * Ids come from a sequence when a row is inserted, but transactions commit in their own order: id 10
 * may become visible after id 11. Reading `id > cursor` alone would pass 10 by forever. So a missing
 * id stops the reading there until it is settled: either the row appears, or every transaction that
 * was running when the gap was first seen has ended (the snapshot's xmin has passed that read's
 * xmax), which means the id was rolled back. Reading and the snapshot are one statement
 * (OutboxRepository.after). A gap left by a rollback with nothing else running is passed at once.
 */
export class OutboxFollower {
  cursor: number | undefined;
  private pumping?: Promise<void>;
  private again = false;
  private gap?: { start: number; xmax: bigint; since: number };
  private retry?: NodeJS.Timeout;
  private safety?: NodeJS.Timeout;

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly target: FollowerTarget,
    private readonly logger?: Logger,
  ) {}

  /** After LISTEN is (again) in place: start at the newest event, or catch up from where we were. */
  async resume(): Promise<void> {
    if (!this.safety) {
      this.safety = setInterval(() => this.wake(), SAFETY_READ_MS);
      this.safety.unref();
    }
    if (this.cursor === undefined) {
      this.cursor = await this.outbox.newest();
      return;
    }
    const { oldest } = await this.outbox.bounds();
    if (oldest !== null && oldest > this.cursor + 1) {
      // Pruned while we were away: jump to what is kept and have every stream reload.
      this.cursor = oldest - 1;
      this.target.resyncAll('window_exceeded');
    }
    this.wake();
  }

  /** A notification (or a gap's retry): read what is new; bursts collapse into one more read. */
  wake(): void {
    if (this.cursor === undefined) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump()
      .catch((err: unknown) => {
        this.logger?.warn('events outbox read failed; retrying', { error: err instanceof Error ? err.message : String(err) });
        this.later(1000);
      })
      .finally(() => (this.pumping = undefined));
  }

  stop(): void {
    clearTimeout(this.retry);
    clearInterval(this.safety);
    this.safety = undefined;
    this.cursor = undefined;
  }

  private async pump(): Promise<void> {
    do {
      this.again = false;
      const page = await this.outbox.after(this.cursor!, PAGE);
      const finished = this.consume(page.events, page.xmin, page.xmax);
      if (finished && page.events.length === PAGE) this.again = true;
    } while (this.again && this.cursor !== undefined);
  }

  /** Dispatches in order up to an unsettled gap; false when it stopped at one. */
  private consume(events: OutboxEvent[], xmin: bigint, xmax: bigint): boolean {
    for (const event of events) {
      if (this.cursor === undefined) return false;
      const expected = this.cursor + 1;
      if (event.id > expected && !this.gapSettled(expected, xmin, xmax)) {
        this.later(GAP_RETRY_MS);
        return false;
      }
      this.gap = undefined;
      this.cursor = event.id;
      this.target.dispatch(event);
    }
    return true;
  }

  private gapSettled(start: number, xmin: bigint, xmax: bigint): boolean {
    if (this.gap?.start !== start) this.gap = { start, xmax, since: Date.now() };
    if (xmin >= this.gap.xmax) return true;
    if (Date.now() - this.gap.since < GAP_GIVE_UP_MS) return false;
    this.logger?.warn('events outbox gap given up: a transaction held events for too long; streams resync', { from: start });
    this.target.resyncAll('outbox_gap');
    return true;
  }

  private later(ms: number): void {
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.wake();
    }, ms);
    this.retry.unref();
  }
}
