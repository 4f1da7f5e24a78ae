import { until } from './poll.js';

export interface MarkerCheck<T> {
  /** The marker, for the timeout message ("a marker email to bob"). */
  what: string;
  /** Makes the marker happen: after the act under test, down the path the unwanted effect would take. */
  sendMarker: () => Promise<unknown>;
  /** Whether the marker has arrived. */
  markerSeen: () => Promise<boolean>;
  /** What is there once the marker has arrived: the answer of the check. */
  look: () => Promise<T>;
  /** How long the marker may take (a loaded machine): a deadline for the marker, never the answer. */
  timeoutMs?: number;
}

/**
 * Proves that something did NOT happen ("nothing was delivered", "sent once"). Watching for a while
 * and seeing nothing proves only that it had not happened yet: a wrong delivery arriving after the
 * window would pass. Instead a marker is sent after the act under test, down the same path; once the
 * marker has arrived, whatever the act would have caused has arrived too (the path keeps order), and
 * `look` tells what really is there. A marker that never comes fails the test instead of passing it.
 */
export async function lookAfterMarker<T>(check: MarkerCheck<T>): Promise<T> {
  await check.sendMarker();
  await until(check.markerSeen, { what: check.what, timeoutMs: check.timeoutMs ?? 30_000, intervalMs: 100 });
  return check.look();
}
