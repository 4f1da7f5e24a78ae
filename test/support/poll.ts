/**
 * The one way tests wait for something another process, connection or timer completes: ask again
 * every `intervalMs` until it holds or `timeoutMs` has passed. Instead of a fixed sleep, which is
 * either too long (slow suite) or too short (flaky test). A timeout is always a failure, never an
 * answer: to show that something did NOT happen, see lookAfterMarker() in absence.ts.
 */
export interface PollOptions {
  /** What is awaited, for the timeout message ("the sync has finished"). */
  what: string;
  timeoutMs?: number;
  intervalMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_INTERVAL_MS = 25;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Answers the first truthy result of `check`; throws `timed out after N ms waiting for <what>` when
 * there is none in time. An error thrown by `check` ends the wait at once.
 */
export async function until<T>(check: () => T | Promise<T>, options: PollOptions): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what}`);
    await pause(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
}
