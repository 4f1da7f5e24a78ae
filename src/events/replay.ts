import type { EventData, OutboxEvent } from './event-types.js';
import type { OutboxRepository } from './outbox-repository.js';

/** At most this many events are replayed; a client further behind reloads instead. */
export const REPLAY_LIMIT = 10_000;

export interface ReplayPlan {
  /** The client must reload its lists (and why); the live events follow anyway. */
  resync?: EventData['resync']['reason'];
  /** Missed events to send first, in order (before the scope filter). */
  events: OutboxEvent[];
  /** The client already saw events up to here (an instance ahead of this one served it). */
  skipUpTo: number;
}

/**
 * What a (re)connecting client with a Last-Event-ID missed, given that this instance's live events
 * begin after `liveFrom`. Ids are the outbox's: a kept window of about ten minutes or 10,000 events.
 * An id older than what is kept, not a number, or newer than any id handed out (a database restored
 * from a backup starts its ids again) answers a resync.
 */
export async function planReplay(outbox: OutboxRepository, lastEventId: string | undefined, liveFrom: number): Promise<ReplayPlan> {
  if (lastEventId === undefined || lastEventId.trim() === '') return { events: [], skipUpTo: 0 };
  if (!/^\d{1,15}$/.test(lastEventId.trim())) return { resync: 'unknown_event_id', events: [], skipUpTo: 0 };
  const seen = Number(lastEventId.trim());
  if (seen >= liveFrom) {
    const { last } = await outbox.bounds();
    return seen > last ? { resync: 'unknown_event_id', events: [], skipUpTo: 0 } : { events: [], skipUpTo: seen };
  }
  const { oldest } = await outbox.bounds();
  // Pruned past what the client saw (an id lost to a rollback right after it looks the same: a harmless reload).
  if (oldest === null || oldest > seen + 1) return { resync: 'window_exceeded', events: [], skipUpTo: 0 };
  const events = await outbox.between(seen, liveFrom, REPLAY_LIMIT + 1);
  if (events.length > REPLAY_LIMIT) return { resync: 'window_exceeded', events: [], skipUpTo: 0 };
  return { events, skipUpTo: 0 };
}
