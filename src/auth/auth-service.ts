import { AppError, AuthenticationError, ConflictError, ValidationError } from '../errors/app-errors.js';
import type { User } from '../models/index.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { Transactions } from '../db/transactions.js';
import type { EmailAccountService } from '../email-accounts/email-account-service.js';
import type { PasswordHasher } from '../users/password-hasher.js';
import type { UserRepository } from '../users/user-repository.js';
import type { UserService } from '../users/user-service.js';
import type { LoginThrottle } from './login-throttle.js';
import { PasswordMessages, assertPasswordPolicy, weakPassword } from './password-policy.js';
import type { SessionService, SessionTokens } from './session-service.js';

import { INVALID_CREDENTIALS, WRONG_CURRENT_PASSWORD } from './auth-messages.js';

export interface LoginInput {
  username: string;
  password: string;
  rememberMe: boolean;
}

export interface SetPasswordInput {
  newPassword: string;
  currentPassword?: string;
}

/** design.md: which onboarding step the client still has to show. */
export interface OnboardingState {
  needsPasswordChange: boolean;
  needsEmailSetup: boolean;
}

export interface LoginResult extends OnboardingState {
  user: User;
  accessToken: string;
  refreshToken: string;
  sessionId: string;
}

export interface UserState extends OnboardingState {
  user: User;
}

/**
 * Login, onboarding (set-password, skip-email) and logout. The audit records of spec section 6 are
 * written here, so every caller (web, CLI) is recorded the same way.
 */
export class AuthService {
  constructor(
    private readonly deps: {
      users: UserService;
      userRepository: UserRepository;
      transactions: Transactions;
      hasher: PasswordHasher;
      sessions: SessionService;
      emailAccounts: Pick<EmailAccountService, 'hasActiveAccount'>;
      audit: AuditService;
      throttle: LoginThrottle;
    },
  ) {}

  async login(input: LoginInput, meta: RequestMeta): Promise<LoginResult> {
    const authenticated = await this.authenticate(input, meta);
    const tokens: SessionTokens = await this.deps.transactions.run(async (tx) => {
      authenticated.lastLogin = new Date();
      await this.deps.userRepository.save(authenticated, tx);
      const created = await this.deps.sessions.create(authenticated, { rememberMe: input.rememberMe }, meta, tx);
      const entry = { userId: authenticated.id, username: authenticated.username, details: { sessionId: created.session.id, rememberMe: input.rememberMe } };
      await this.deps.audit.record({ action: AuditActions.loginAttempt, success: true, ...entry }, meta, tx);
      await this.deps.audit.record({ action: AuditActions.login, ...entry }, meta, tx);
      return created;
    });
    await this.upgradeHash(authenticated, input.password);
    return {
      user: authenticated,
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken!,
      sessionId: tokens.session.id,
      ...(await this.onboardingState(authenticated)),
    };
  }

  /**
   * During onboarding `newPassword` alone; once the user has a password of their own, `currentPassword`
   * too (wrong: 400, so a client does not mistake it for an ended session). Other sessions end.
   */
  async setPassword(userId: string, sessionId: string | undefined, input: SetPasswordInput, meta: RequestMeta): Promise<UserState> {
    const user = await this.deps.users.getById(userId);
    assertPasswordPolicy(input.newPassword, user.username);
    if (user.changedPassword) {
      await this.verifyCurrentPassword(user, input.currentPassword, meta);
      if (input.newPassword === input.currentPassword) throw weakPassword(PasswordMessages.equalsCurrent);
    } else if (user.tempPassword && (await this.deps.hasher.verify(input.newPassword, user.tempPassword))) {
      throw weakPassword(PasswordMessages.equalsTemporary);
    }
    // Hashing takes a while: do it before the transaction, then make sure nothing changed meanwhile.
    const hash = await this.deps.hasher.hash(input.newPassword);
    const saved = await this.deps.transactions.run(async (tx) => {
      const locked = await this.deps.userRepository.lockById(userId, tx);
      if (!locked) throw new AuthenticationError();
      if (locked.password !== user.password || locked.changedPassword !== user.changedPassword) {
        throw new ConflictError('Heslo bolo medzitým zmenené, skúste to znova');
      }
      locked.password = hash;
      locked.changedPassword = true;
      locked.tempPassword = null;
      locked.tempPasswordExpiresAt = null;
      await this.deps.userRepository.save(locked, tx);
      const revokedSessions = await this.deps.sessions.revokeAllForUser(userId, 'password_change', { except: sessionId }, tx);
      await this.deps.audit.record(
        { action: AuditActions.passwordChange, userId, username: locked.username, details: { onboarding: !user.changedPassword, revokedSessions } },
        meta,
        tx,
      );
      return locked;
    });
    return { user: saved, ...(await this.onboardingState(saved)) };
  }

  /** The user chose not to link a email account now; they are not asked again. */
  async skipEmail(userId: string, meta: RequestMeta): Promise<UserState> {
    const user = await this.deps.transactions.run(async (tx) => {
      const found = await this.deps.userRepository.lockById(userId, tx);
      if (!found) throw new AuthenticationError();
      found.emailSetupSkipped = true;
      await this.deps.userRepository.save(found, tx);
      await this.deps.audit.record({ action: AuditActions.emailSkip, userId, username: found.username }, meta, tx);
      return found;
    });
    return { user, ...(await this.onboardingState(user)) };
  }

  async logout(user: { id: string; username: string }, sessionId: string, meta: RequestMeta): Promise<void> {
    await this.deps.transactions.run(async (tx) => {
      await this.deps.sessions.revoke(sessionId, 'logout', tx);
      await this.deps.audit.record({ action: AuditActions.logout, userId: user.id, username: user.username, details: { sessionId } }, meta, tx);
    });
  }

  async onboardingState(user: User): Promise<OnboardingState> {
    return {
      needsPasswordChange: !user.changedPassword,
      needsEmailSetup: !user.emailSetupSkipped && !(await this.deps.emailAccounts.hasActiveAccount(user.id)),
    };
  }

  /** Throttled credential check; every failure is audited as a failed login attempt. */
  private async authenticate(input: LoginInput, meta: RequestMeta): Promise<User> {
    const ip = meta.ip ?? 'unknown';
    let user: User | null = null;
    try {
      await this.deps.throttle.reserve(input.username, ip);
      user = await this.deps.users.findByUsername(input.username);
      // Exactly one bcrypt comparison on every path, so response time does not tell whether the user exists.
      const matches = await this.passwordMatches(user, input.password);
      if (!user || !matches) throw new AuthenticationError(INVALID_CREDENTIALS, 'invalid_credentials');
      await this.deps.throttle.succeeded(input.username, ip);
      return user;
    } catch (err) {
      if (err instanceof AppError) await this.recordFailedAttempt(input.username, err, meta, user?.id);
      throw err;
    }
  }

  /** The audit record of a failed login (spec section 6), also for requests rejected before any check. */
  async recordFailedAttempt(username: string | null, err: Error, meta: RequestMeta, userId?: string): Promise<void> {
    const statusCode = err instanceof AppError ? err.statusCode : 500;
    await this.deps.audit.record(
      { action: AuditActions.loginAttempt, userId, username: username?.slice(0, 128) ?? null, success: false, details: { error: err.message, statusCode } },
      meta,
    );
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
  private async upgradeHash(user: User, password: string): Promise<void> {
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

  /** Guessing the current password with a stolen session is throttled like guessing at login. */
  private async verifyCurrentPassword(user: User, currentPassword: string | undefined, meta: RequestMeta): Promise<void> {
    if (!currentPassword) {
      throw new ValidationError('Zadajte aktuálne heslo', [{ field: 'currentPassword', message: 'Aktuálne heslo je povinné' }]);
    }
    const ip = meta.ip ?? 'unknown';
    await this.deps.throttle.reserve(user.username, ip);
    if (!(await this.deps.hasher.verify(currentPassword, user.password))) {
      await this.deps.audit.record(
        { action: AuditActions.passwordChange, userId: user.id, username: user.username, success: false, details: { error: WRONG_CURRENT_PASSWORD } },
        meta,
      );
      throw new ValidationError(WRONG_CURRENT_PASSWORD, [{ field: 'currentPassword', message: WRONG_CURRENT_PASSWORD }]);
    }
    await this.deps.throttle.succeeded(user.username, ip);
  }
}
