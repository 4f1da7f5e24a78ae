/**
 * When accounts are checked. Every account is due once per interval at its own phase, a fixed
 * offset within the interval derived from its id: 200 accounts with a 30 s interval are checked
 * about every 150 ms, never all at :00. The next turn is computed by the database from its own
 * clock (several workers on several hosts agree on it); the phase comes from here.
 */
import { createHash } from 'node:crypto';

export interface SyncSchedule {
  /** Each account's polling period. */
  intervalMs: number;
}

export const DEFAULT_INTERVAL_SECONDS = 30;

/** The account's offset within the interval: stable for the account, spread evenly over accounts. */
export function phaseMs(accountId: string, intervalMs: number): number {
  const digest = createHash('sha256').update(accountId).digest();
  // 48 bits are plenty for intervals up to a day in milliseconds, and exact as a JS number.
  return digest.readUIntBE(0, 6) % intervalMs;
}

/** The first slot of the account strictly after `nowMs` (what the SQL in sync-repository.ts computes). */
export function nextSlotMs(nowMs: number, phase: number, intervalMs: number): number {
  return (Math.floor((nowMs - phase) / intervalMs) + 1) * intervalMs + phase;
}

/**
 * How often the scheduler looks for due accounts: a sixth of the interval, between 1 and 5 s. An
 * account is picked up at most this long after its turn (plus the wait for a free worker), so mail
 * is visible within interval + tick + the run itself.
 */
export function tickMs(intervalMs: number): number {
  return Math.min(5000, Math.max(1000, Math.round(intervalMs / 6)));
}
