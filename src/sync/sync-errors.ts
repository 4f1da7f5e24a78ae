import { AppError } from '../errors/app-errors.js';
import { JmapAuthError, JmapError, JmapMethodError, JmapProtocolError, JmapTimeoutError, JmapUnreachableError } from '../jmap/index.js';

/** shutdown() was called: the run stops after the batch in progress, which is committed or not started. */
export class SyncInterruptedError extends Error {
  constructor() {
    super('mail sync interrupted by shutdown');
    this.name = 'SyncInterruptedError';
  }
}

/**
 * The run may no longer write: its lease expired and another instance took over, or the account was
 * deleted, deactivated or given other credentials meanwhile. Not a failure of the account.
 */
export class SyncSupersededError extends Error {
  constructor(reason: string) {
    super(`mail sync stopped: ${reason}`);
    this.name = 'SyncSupersededError';
  }
}

export const MAX_BACKOFF_MINUTES = 60;

/** 1, 2, 4 ... minutes after the 1st, 2nd, 3rd ... consecutive failure, never more than an hour. */
export function backoffMinutes(consecutiveFailures: number): number {
  const exponent = Math.max(0, Math.min(consecutiveFailures - 1, 10));
  return Math.min(MAX_BACKOFF_MINUTES, 2 ** exponent);
}

export type FailureKind = 'auth' | 'transient';

/**
 * What the account owner sees in last_error: one short Slovak sentence, never a server URL, a
 * password or a stack (those go to the log).
 */
export function describeFailure(err: unknown): { kind: FailureKind; reason: string; message: string } {
  // A server that refuses or rate-limits the CRM itself does so for every account: each one backs off
  // and retries by itself; none is stopped as if its password were wrong (that needs a 401).
  if (err instanceof JmapAuthError && err.refusesClient) {
    return { kind: 'transient', reason: 'refused', message: 'Poštový server odmietol pripojenie CRM; skúsime to znova.' };
  }
  if (err instanceof JmapProtocolError && err.status === 429) {
    return { kind: 'transient', reason: 'rate_limited', message: 'Poštový server dočasne obmedzil požiadavky CRM; skúsime to znova.' };
  }
  if (err instanceof JmapAuthError) {
    return { kind: 'auth', reason: 'auth', message: 'Poštový server odmietol prihlasovacie údaje; zadajte nové heslo k emailovému účtu.' };
  }
  if (err instanceof JmapTimeoutError) return { kind: 'transient', reason: 'timeout', message: 'Poštový server neodpovedal včas.' };
  if (err instanceof JmapUnreachableError) return { kind: 'transient', reason: 'unreachable', message: 'Poštový server nie je dostupný.' };
  if (err instanceof JmapMethodError) {
    return { kind: 'transient', reason: 'method', message: `Poštový server odmietol požiadavku (${safeType(err.type)}).` };
  }
  if (err instanceof JmapError) return { kind: 'transient', reason: 'protocol', message: 'Poštový server odpovedal neočakávane.' };
  // Our own errors carry a user-facing Slovak message already (e.g. JMAP_SESSION_URL not configured).
  if (err instanceof AppError) return { kind: 'transient', reason: 'config', message: err.message };
  return { kind: 'transient', reason: 'internal', message: 'Synchronizácia zlyhala pre internú chybu; skúsime to znova.' };
}

/** Method error types come from the server: keep only a short identifier. */
function safeType(type: string): string {
  return /^[A-Za-z]{1,40}$/.test(type) ? type : 'unknown';
}
