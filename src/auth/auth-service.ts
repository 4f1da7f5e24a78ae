import type { Sequelize } from 'sequelize';
import { AppError, AuthenticationError, ConflictError, ValidationError } from '../errors/app-errors.js';
import { User } from '../models/index.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { EmailAccountService } from '../email-accounts/email-account-service.js';
import type { PasswordHasher } from '../users/password-hasher.js';
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
    private readonly sequelize: Sequelize,
    private readonly users: UserService,
    private readonly hasher: PasswordHasher,
    private readonly sessions: SessionService,
    private readonly emailAccounts: Pick<EmailAccountService, 'hasActiveAccount'>,
    private readonly audit: AuditService,
    private readonly throttle: LoginThrottle,
  ) {}

  async login(input: LoginInput, meta: RequestMeta): Promise<LoginResult> {
    const authenticated = await this.authenticate(input, meta);
    const tokens: SessionTokens = await this.sequelize.transaction(async (transaction) => {
      authenticated.lastLogin = new Date();
      await authenticated.save({ transaction });
      const created = await this.sessions.create(authenticated, { rememberMe: input.rememberMe }, meta, transaction);
      const entry = { userId: authenticated.id, username: authenticated.username, details: { sessionId: created.session.id, rememberMe: input.rememberMe } };
      await this.audit.record({ action: AuditActions.loginAttempt, success: true, ...entry }, meta, transaction);
      await this.audit.record({ action: AuditActions.login, ...entry }, meta, transaction);
      return created;
    });
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
    const user = await this.users.getById(userId);
    assertPasswordPolicy(input.newPassword, user.username);
    if (user.changedPassword) {
      await this.verifyCurrentPassword(user, input.currentPassword, meta);
      if (input.newPassword === input.currentPassword) throw weakPassword(PasswordMessages.equalsCurrent);
    } else if (user.tempPassword && (await this.hasher.verify(input.newPassword, user.tempPassword))) {
      throw weakPassword(PasswordMessages.equalsTemporary);
    }
    // Hashing takes a while: do it before the transaction, then make sure nothing changed meanwhile.
    const hash = await this.hasher.hash(input.newPassword);
    const saved = await this.sequelize.transaction(async (transaction) => {
      const locked = await User.findByPk(userId, { transaction, lock: transaction.LOCK.UPDATE });
      if (!locked) throw new AuthenticationError();
      if (locked.password !== user.password || locked.changedPassword !== user.changedPassword) {
        throw new ConflictError('Heslo bolo medzitým zmenené, skúste to znova');
      }
      locked.password = hash;
      locked.changedPassword = true;
      locked.tempPassword = null;
      locked.tempPasswordExpiresAt = null;
      await locked.save({ transaction });
      const revokedSessions = await this.sessions.revokeAllForUser(userId, 'password_change', { except: sessionId, transaction });
      await this.audit.record(
        { action: AuditActions.passwordChange, userId, username: locked.username, details: { onboarding: !user.changedPassword, revokedSessions } },
        meta,
        transaction,
      );
      return locked;
    });
    return { user: saved, ...(await this.onboardingState(saved)) };
  }

  /** The user chose not to link a email account now; they are not asked again. */
  async skipEmail(userId: string, meta: RequestMeta): Promise<UserState> {
    const user = await this.sequelize.transaction(async (transaction) => {
      const found = await User.findByPk(userId, { transaction, lock: transaction.LOCK.UPDATE });
      if (!found) throw new AuthenticationError();
      found.emailSetupSkipped = true;
      await found.save({ transaction });
      await this.audit.record({ action: AuditActions.emailSkip, userId, username: found.username }, meta, transaction);
      return found;
    });
    return { user, ...(await this.onboardingState(user)) };
  }

  async logout(user: { id: string; username: string }, sessionId: string, meta: RequestMeta): Promise<void> {
    await this.sequelize.transaction(async (transaction) => {
      await this.sessions.revoke(sessionId, 'logout', transaction);
      await this.audit.record({ action: AuditActions.logout, userId: user.id, username: user.username, details: { sessionId } }, meta, transaction);
    });
  }

  async onboardingState(user: User): Promise<OnboardingState> {
    return {
      needsPasswordChange: !user.changedPassword,
      needsEmailSetup: !user.emailSetupSkipped && !(await this.emailAccounts.hasActiveAccount(user.id)),
    };
  }

  /** Throttled credential check; every failure is audited as a failed login attempt. */
  private async authenticate(input: LoginInput, meta: RequestMeta): Promise<User> {
    const ip = meta.ip ?? 'unknown';
    let user: User | null = null;
    try {
      await this.throttle.reserve(input.username, ip);
      user = await this.users.findByUsername(input.username);
      // Exactly one bcrypt comparison on every path, so response time does not tell whether the user exists.
      const matches = await this.passwordMatches(user, input.password);
      if (!user || !matches) throw new AuthenticationError(INVALID_CREDENTIALS);
      await this.throttle.succeeded(input.username, ip);
      return user;
    } catch (err) {
      if (err instanceof AppError) await this.recordFailedAttempt(input.username, err, meta, user?.id);
      throw err;
    }
  }

  /** The audit record of a failed login (spec section 6), also for requests rejected before any check. */
  async recordFailedAttempt(username: string | null, err: Error, meta: RequestMeta, userId?: string): Promise<void> {
    const statusCode = err instanceof AppError ? err.statusCode : 500;
    await this.audit.record(
      { action: AuditActions.loginAttempt, userId, username: username?.slice(0, 128) ?? null, success: false, details: { error: err.message, statusCode } },
      meta,
    );
  }

  /**
   * Until the user has set a password, only the unexpired temporary password opens the account;
   * afterwards only the password. An expiry that was never set counts as expired (fail closed).
   */
  private async passwordMatches(user: User | null, password: string): Promise<boolean> {
    if (!user) return this.hasher.verify(password, null);
    if (user.changedPassword) return this.hasher.verify(password, user.password);
    const matches = await this.hasher.verify(password, user.tempPassword);
    return matches && !!user.tempPasswordExpiresAt && user.tempPasswordExpiresAt > new Date();
  }

  /** Guessing the current password with a stolen session is throttled like guessing at login. */
  private async verifyCurrentPassword(user: User, currentPassword: string | undefined, meta: RequestMeta): Promise<void> {
    if (!currentPassword) {
      throw new ValidationError('Zadajte aktuálne heslo', [{ field: 'currentPassword', message: 'Aktuálne heslo je povinné' }]);
    }
    const ip = meta.ip ?? 'unknown';
    await this.throttle.reserve(user.username, ip);
    if (!(await this.hasher.verify(currentPassword, user.password))) {
      await this.audit.record(
        { action: AuditActions.passwordChange, userId: user.id, username: user.username, success: false, details: { error: WRONG_CURRENT_PASSWORD } },
        meta,
      );
      throw new ValidationError(WRONG_CURRENT_PASSWORD, [{ field: 'currentPassword', message: WRONG_CURRENT_PASSWORD }]);
    }
    await this.throttle.succeeded(user.username, ip);
  }
}
