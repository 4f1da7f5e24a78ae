import crypto from 'node:crypto';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { consumeAll, type ThrottleCounter, type ThrottleRepository } from '../auth/throttle-repository.js';
import { RateLimitError } from '../errors/app-errors.js';
import { MailCredentialsRejectedError, type CredentialValidator, type MailCredentials } from './credential-validator.js';
import type { CredentialSubject } from './credential-subject.js';

export type { CredentialSubject } from './credential-subject.js';

interface Limit {
  points: number;
  durationSeconds: number;
}

/**
 * Failed mail-credential checks (link-email, adding an account, new credentials) allowed before 429:
 * - per CRM user: one member guessing someone's mail password (10 per hour, any address);
 * - per mail address: several members guessing the same mailbox (10 per hour, from anyone).
 * Guesses beyond them never reach the mail server, so the CRM cannot be the one that trips the mail
 * server's own lockout of its address.
 */
export const CREDENTIAL_LIMITS: { perUser: Limit; perAddress: Limit } = {
  perUser: { points: 10, durationSeconds: 60 * 60 },
  perAddress: { points: 10, durationSeconds: 60 * 60 },
};

export const CREDENTIALS_THROTTLED_MESSAGE = 'Príliš veľa neúspešných pokusov o overenie emailového účtu. Skúste to znova neskôr.';

/**
 * Counters in PostgreSQL (rate_limits, like the login throttle), so they hold across instances. As at
 * login, a check reserves its points before it talks to the mail server (parallel guesses cannot slip
 * through) and gives them back unless the server refused the credentials.
 */
export class CredentialThrottle {
  private readonly byUser: ThrottleCounter;
  private readonly byAddress: ThrottleCounter;

  constructor(counters: Pick<ThrottleRepository, 'counter'>, limits = CREDENTIAL_LIMITS) {
    this.byUser = counters.counter('mail_cred_user', limits.perUser);
    this.byAddress = counters.counter('mail_cred_address', limits.perAddress);
  }

  /** Throws RateLimitError (Retry-After) when the user or the address has no guesses left. */
  async reserve(userId: string, address: string): Promise<void> {
    await consumeAll([() => this.byUser.consume(userId), () => this.byAddress.consume(addressKey(address))], CREDENTIALS_THROTTLED_MESSAGE);
  }

  /** The check did not end in refused credentials (accepted, or the server was unreachable): no guess spent. */
  async release(userId: string, address: string): Promise<void> {
    // One after the other: at most one pool connection per request (ADR 0121).
    await this.byUser.reward(userId);
    await this.byAddress.reward(addressKey(address));
  }
}

/** Throttled checks of one CRM user within this many seconds are one counted audit record. */
const THROTTLED_AUDIT_WINDOW_SECONDS = 15 * 60;

/**
 * Every credential check against the mail server goes through here: throttled per CRM user and per
 * address before the server is asked, each refusal audited, and a flood of throttled checks counted
 * into one record per user and window.
 */
export class CredentialGuard {
  constructor(private readonly deps: { throttle: CredentialThrottle; validate: CredentialValidator; audit: AuditService }) {}

  /**
   * `subject` is whom the guesses are counted against and whose record the refusal is: the CRM user
   * who links the account, or (creating a user with a mailbox) the administrator doing it, as the new
   * user does not exist yet (its record could not point at it).
   */
  async check(subject: string | CredentialSubject, credentials: MailCredentials, meta: RequestMeta): Promise<{ accountId: string }> {
    const { throttle, audit } = this.deps;
    const who: CredentialSubject = typeof subject === 'string' ? { throttleKey: subject, userId: subject } : subject;
    const entry = (error: Error & { statusCode: number }) => ({
      action: AuditActions.emailCredentialsRejected,
      userId: who.userId,
      success: false,
      details: { email: credentials.email, statusCode: error.statusCode, error: error.message, ...(who.forUsername !== undefined ? { forUsername: who.forUsername } : {}) },
    });
    try {
      await throttle.reserve(who.throttleKey, credentials.email);
    } catch (err) {
      if (err instanceof RateLimitError) await audit.recordCounted(entry(err), meta, { scope: `mail-credentials:${who.throttleKey}`, seconds: THROTTLED_AUDIT_WINDOW_SECONDS });
      throw err;
    }
    try {
      const result = await this.deps.validate(credentials);
      await throttle.release(who.throttleKey, credentials.email);
      return result;
    } catch (err) {
      if (err instanceof MailCredentialsRejectedError) await audit.record(entry(err), meta);
      else await throttle.release(who.throttleKey, credentials.email);
      throw err;
    }
  }
}

/** Hashed: the table holds no addresses, and keys stay short. */
function addressKey(address: string): string {
  return crypto.createHash('sha256').update(address.trim().toLowerCase()).digest('base64url');
}
