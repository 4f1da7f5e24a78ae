import { ConflictError, NotFoundError } from '../errors/app-errors.js';
import type { User } from '../models/index.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { Transactions, Tx } from '../db/transactions.js';
import type { UserSessionRevoker } from './user-admin-service.js';
import type { UserEvents } from './user-events.js';
import type { UserRepository } from './user-repository.js';

const NOT_FOUND = 'Používateľ neexistuje';
const SELF = 'Vlastný účet nemôžete zablokovať';
const LAST_ACTIVE_ADMIN = 'Posledného aktívneho administrátora nemožno zablokovať';

export interface StatusChange {
  user: User;
  /** False when the user already was in the asked state (nothing was written or audited). */
  changed: boolean;
  /** Sessions ended by a disable. */
  revokedSessions: number;
}

/**
 * Disabling a leaver instead of deleting them: the account and its data stay, but it cannot log in,
 * every session ends at once (the revocation reaches every instance through the auth-change
 * triggers), the directory no longer offers it, and its own mailboxes stop syncing unless an active
 * member shares them (src/sync/sync-repository.ts). Enabling undoes it; deleting stays for removal.
 */
export class UserLifecycleService {
  constructor(
    private readonly deps: {
      repository: UserRepository;
      transactions: Transactions;
      sessions: UserSessionRevoker;
      audit: AuditService;
      /** user.disabled into the outbox, for webhooks (issue 48). */
      events?: UserEvents;
    },
  ) {}

  /**
   * `actorUserId`: the administrator asking (the API); they cannot disable themselves. Nobody can
   * disable the last admin who can still log in, or nobody could manage the system any more.
   */
  async disable(id: string, meta: RequestMeta, actorUserId?: string): Promise<StatusChange> {
    return this.deps.transactions.run(async (tx) => {
      // Admin rows first, in id order (UserRepository.lockAdmins): two admins disabling each other at once are decided one after the other.
      await this.deps.repository.lockAdmins(tx);
      const user = await this.lockUser(id, tx);
      if (user.disabledAt) return { user, changed: false, revokedSessions: 0 };
      if (actorUserId === user.id) throw new ConflictError(SELF);
      if (user.role === 'admin' && (await this.deps.repository.countOtherAdmins(user.id, tx)) === 0) throw new ConflictError(LAST_ACTIVE_ADMIN);
      user.disabledAt = new Date();
      await this.deps.repository.save(user, tx);
      const revokedSessions = await this.deps.sessions.revokeAllForUser(user.id, 'user_disabled', {}, tx);
      await this.deps.audit.record({ action: AuditActions.userDisabled, userId: user.id, username: user.username, details: { role: user.role, revokedSessions } }, meta, tx);
      await this.deps.events?.disabled(user, tx);
      return { user, changed: true, revokedSessions };
    });
  }

  async enable(id: string, meta: RequestMeta): Promise<StatusChange> {
    return this.deps.transactions.run(async (tx) => {
      const user = await this.lockUser(id, tx);
      if (!user.disabledAt) return { user, changed: false, revokedSessions: 0 };
      const disabledAt = user.disabledAt;
      user.disabledAt = null;
      await this.deps.repository.save(user, tx);
      await this.deps.audit.record({ action: AuditActions.userEnabled, userId: user.id, username: user.username, details: { disabledSince: disabledAt.toISOString() } }, meta, tx);
      return { user, changed: true, revokedSessions: 0 };
    });
  }

  private async lockUser(id: string, tx: Tx): Promise<User> {
    const user = await this.deps.repository.lockById(id, tx);
    if (!user) throw new NotFoundError(NOT_FOUND);
    return user;
  }
}
