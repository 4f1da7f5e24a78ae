/**
 * The one way tests wait for something another process, connection or timer completes: ask again
 * every `intervalMs` until it holds or `timeoutMs` has passed. Instead of a fixed sleep, which is
 * either too long (slow suite) or too short (flaky test).
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
  const { met, value } = await poll(check, options);
  if (!met) throw new Error(`timed out after ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms waiting for ${options.what}`);
  return value as NonNullable<T>;
}

/**
 * Like until(), but a timeout is an answer, not an error: `met` false and the last result. For
 * "this must NOT happen within N ms" and for callers that decide themselves what a timeout means.
 */
export async function poll<T>(check: () => T | Promise<T>, options: PollOptions): Promise<{ met: boolean; value: T }> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return { met: true, value };
    if (Date.now() >= deadline) return { met: false, value };
    await pause(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
}
