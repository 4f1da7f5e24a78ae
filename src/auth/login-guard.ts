import { AccountDisabledError, AppError, AuthenticationError, RateLimitError } from '../errors/app-errors.js';
import type { User } from '../models/index.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { PasswordHasher } from '../users/password-hasher.js';
import type { UserRepository } from '../users/user-repository.js';
import type { UserService } from '../users/user-service.js';
import { INVALID_CREDENTIALS } from './auth-messages.js';
import { clientKey } from './client-key.js';
import type { KnownDevices } from './known-device.js';
import type { LoginThrottle } from './login-throttle.js';

/** Throttled attempts of one client within this many seconds are one counted audit record. */
export const THROTTLED_AUDIT_WINDOW_SECONDS = 15 * 60;

export interface LoginGuardDeps {
  users: UserService;
  userRepository: UserRepository;
  hasher: PasswordHasher;
  audit: AuditService;
  throttle: LoginThrottle;
  devices: KnownDevices;
}

export interface Credentials {
  username: string;
  password: string;
  /** The known-device cookie, when the browser sent one. */
  deviceToken?: string;
}

/**
 * The password check of a login: throttled (login-throttle.ts) before anything else, audited on every
 * failure (docs/contract.md §6) without letting a flood fill the audit log: attempts refused by the
 * throttle are one counted record per client and window, not a row each.
 */
export class LoginGuard {
  constructor(private readonly deps: LoginGuardDeps) {}

  async authenticate(input: Credentials, meta: RequestMeta): Promise<User> {
    const device = this.deps.devices.verify(input.deviceToken, input.username);
    let user: User | null = null;
    try {
      await this.deps.throttle.reserve(input.username, meta.ip, device);
      user = await this.deps.users.findByUsername(input.username);
      // Exactly one bcrypt comparison on every path, so response time does not tell whether the user exists.
      const matches = await this.passwordMatches(user, input.password);
      if (!user || !matches) throw new AuthenticationError(INVALID_CREDENTIALS, 'invalid_credentials');
      // Only after the password check: a wrong password tells nobody whether the account is disabled.
      if (user.disabledAt) throw new AccountDisabledError();
      await this.deps.throttle.succeeded(input.username, meta.ip, device);
      return user;
    } catch (err) {
      if (err instanceof AppError) await this.recordFailure(input.username, err, meta, user?.id);
      throw err;
    }
  }

  /**
   * A login whose body did not pass validation: it uses up a point of the client first (a flood of
   * malformed logins is throttled like one of wrong passwords), then is audited as a failed attempt.
   * Throws the error to answer: the validation error, or the 429 once the client is over its limit.
   */
  async rejectMalformed(username: string | null, err: Error, meta: RequestMeta): Promise<never> {
    try {
      await this.deps.throttle.reserveClient(meta.ip);
    } catch (throttled) {
      if (throttled instanceof RateLimitError) await this.recordFailure(username, throttled, meta);
      throw throttled;
    }
    await this.recordFailure(username, err, meta);
    throw err;
  }

  /** The audit record of a failed login; a throttled one is counted into its client's record of the window. */
  private async recordFailure(username: string | null, err: Error, meta: RequestMeta, userId?: string): Promise<void> {
    const statusCode = err instanceof AppError ? err.statusCode : 500;
    const entry = { action: AuditActions.loginAttempt, userId, username: username?.slice(0, 128) ?? null, success: false, details: { error: err.message, statusCode } };
    if (err instanceof RateLimitError) {
      await this.deps.audit.recordCounted(entry, meta, { scope: `login:${clientKey(meta.ip)}`, seconds: THROTTLED_AUDIT_WINDOW_SECONDS });
    } else {
      await this.deps.audit.record(entry, meta);
    }
  }

  /**
   * Until the user has set a password, only the unexpired temporary password opens the account;
   * afterwards only the password. An expiry that was never set counts as expired (fail closed).
   */
  private async passwordMatches(user: User | null, password: string): Promise<boolean> {
    if (!user) return this.deps.hasher.verify(password, null);
    if (user.changedPassword) return this.deps.hasher.verify(password, user.password);
    const matches = await this.deps.hasher.verify(password, user.tempPassword);
    return matches && !!user.tempPasswordExpiresAt && user.tempPasswordExpiresAt > new Date();
  }

  /**
   * A hash made at another cost than BCRYPT_ROUNDS is replaced now that the password is known: until
   * then its wrong-password answers take another time than those for unknown users. Only if nothing
   * changed it meanwhile; a failure leaves it for the next login.
   */
  async upgradeHash(user: User, password: string): Promise<void> {
    const field = user.changedPassword ? 'password' : 'tempPassword';
    const current = user[field];
    if (!current || !this.deps.hasher.needsRehash(current)) return;
    try {
      const next = await this.deps.hasher.hash(password);
      if (await this.deps.userRepository.replaceHash(user.id, field, current, next)) user[field] = next;
    } catch {
      // The login itself succeeded; the next one tries again.
    }
  }

  /** A fresh known-device token for the browser that just logged in as this user. */
  deviceTokenFor(username: string): string {
    return this.deps.devices.issue(username);
  }
}
