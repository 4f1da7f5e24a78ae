import { AccountDisabledError, AuthenticationError, ConflictError, ValidationError } from '../errors/app-errors.js';
import type { User } from '../models/index.js';
import { AuditActions, type RequestMeta } from '../audit/audit-service.js';
import type { Transactions } from '../db/transactions.js';
import type { EmailAccountService } from '../email-accounts/email-account-service.js';
import { LoginGuard, type LoginGuardDeps } from './login-guard.js';
import { PasswordMessages, assertPasswordPolicy, weakPassword } from './password-policy.js';
import type { SessionService, SessionTokens } from './session-service.js';

import { WRONG_CURRENT_PASSWORD } from './auth-messages.js';

export interface LoginInput {
  username: string;
  password: string;
  rememberMe: boolean;
  /** The known-device cookie (known-device.ts), when the browser sent one. */
  deviceToken?: string;
}

export interface SetPasswordInput {
  newPassword: string;
  currentPassword?: string;
}

/** docs/contract.md §3: which onboarding step the client still has to show. */
export interface OnboardingState {
  needsPasswordChange: boolean;
  needsEmailSetup: boolean;
}

export interface LoginResult extends OnboardingState {
  user: User;
  accessToken: string;
  refreshToken: string;
  sessionId: string;
  /** For the known-device cookie: this browser is now known for this user. */
  deviceToken: string;
}

export interface UserState extends OnboardingState {
  user: User;
}

/**
 * Login, onboarding (set-password, skip-email) and logout. The audit records of docs/contract.md §6 are
 * written here, so every caller (web, CLI) is recorded the same way.
 */
export class AuthService {
  private readonly guard: LoginGuard;

  constructor(
    private readonly deps: LoginGuardDeps & {
      transactions: Transactions;
      sessions: SessionService;
      emailAccounts: Pick<EmailAccountService, 'hasActiveAccount'>;
    },
  ) {
    this.guard = new LoginGuard(deps);
  }

  async login(input: LoginInput, meta: RequestMeta): Promise<LoginResult> {
    const authenticated = await this.guard.authenticate(input, meta);
    const tokens: SessionTokens = await this.deps.transactions.run(async (tx) => {
      // The password was checked outside any transaction (bcrypt is slow): a disable or a deletion
      // that committed meanwhile is seen here, under the row lock, before a session is made.
      const current = await this.deps.userRepository.lockById(authenticated.id, tx);
      if (!current) throw new AuthenticationError();
      if (current.disabledAt) throw new AccountDisabledError();
      authenticated.lastLogin = new Date();
      await this.deps.userRepository.save(authenticated, tx);
      const created = await this.deps.sessions.create(authenticated, { rememberMe: input.rememberMe }, meta, tx);
      const entry = { userId: authenticated.id, username: authenticated.username, details: { sessionId: created.session.id, rememberMe: input.rememberMe } };
      await this.deps.audit.record({ action: AuditActions.loginAttempt, success: true, ...entry }, meta, tx);
      await this.deps.audit.record({ action: AuditActions.login, ...entry }, meta, tx);
      return created;
    });
    await this.guard.upgradeHash(authenticated, input.password);
    return {
      user: authenticated,
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken!,
      sessionId: tokens.session.id,
      deviceToken: this.guard.deviceTokenFor(authenticated.username),
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

  /** A login body that failed validation: throttled and audited (LoginGuard.rejectMalformed); always throws. */
  rejectMalformedLogin(username: string | null, err: Error, meta: RequestMeta): Promise<never> {
    return this.guard.rejectMalformed(username, err, meta);
  }

  async onboardingState(user: User): Promise<OnboardingState> {
    return onboardingOf(user, await this.deps.emailAccounts.hasActiveAccount(user.id));
  }

  /** Guessing the current password with a stolen session is throttled like guessing at login. */
  private async verifyCurrentPassword(user: User, currentPassword: string | undefined, meta: RequestMeta): Promise<void> {
    if (!currentPassword) {
      throw new ValidationError('Zadajte aktuálne heslo', [{ field: 'currentPassword', message: 'Aktuálne heslo je povinné' }]);
    }
    await this.deps.throttle.reserve(user.username, meta.ip);
    if (!(await this.deps.hasher.verify(currentPassword, user.password))) {
      await this.deps.audit.record(
        { action: AuditActions.passwordChange, userId: user.id, username: user.username, success: false, details: { error: WRONG_CURRENT_PASSWORD } },
        meta,
      );
      throw new ValidationError(WRONG_CURRENT_PASSWORD, [{ field: 'currentPassword', message: WRONG_CURRENT_PASSWORD }]);
    }
    await this.deps.throttle.succeeded(user.username, meta.ip);
  }
}

/** Where a user stands in onboarding, from what the session check already knows (no query). */
export function onboardingOf(user: Pick<User, 'changedPassword' | 'emailSetupSkipped'>, hasActiveEmailAccount: boolean): OnboardingState {
  return { needsPasswordChange: !user.changedPassword, needsEmailSetup: !user.emailSetupSkipped && !hasActiveEmailAccount };
}
