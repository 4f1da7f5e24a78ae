/**
 * A test that needs something outside the project (a system tool, a second PostgreSQL) must not pass
 * just because that thing is missing. In CI (CI=true) a missing prerequisite fails the test; on a
 * developer's machine the test is skipped, counted as skipped, and the reason is listed at the end of
 * the run (test/support/summary-reporter.cjs).
 */
import type { Context } from 'mocha';

declare global {
  var __skipReasons: string[] | undefined;
}

export function inCi(): boolean {
  return process.env.CI === 'true' || process.env.CI === '1';
}

/** `present` false: throws in CI, else skips the running test with `what` as the printed reason. */
export function requirePrerequisite(test: Context, present: boolean, what: string): void {
  if (present) return;
  if (inCi()) throw new Error(`missing prerequisite (CI=true, so this fails instead of skipping): ${what}`);
  const title = test.currentTest?.fullTitle() ?? test.test?.fullTitle() ?? 'a test';
  (globalThis.__skipReasons ??= []).push(`${title}: ${what}`);
  test.skip();
}
