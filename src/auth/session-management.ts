import { NotFoundError } from '../errors/app-errors.js';
import type { Session } from '../models/index.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { Transactions } from '../db/transactions.js';
import type { SessionRepository } from './session-repository.js';

const NOT_FOUND = 'Relácia neexistuje';

/** One open session as its user (or an administrator) sees it: never a token or a hash. */
export interface SessionSummary {
  id: string;
  /** The session the request was made with. */
  current: boolean;
  createdAt: Date;
  lastUsedAt: Date;
  ip: string | null;
  userAgent: string | null;
  rememberMe: boolean;
  expiresAt: Date;
}

/** Who the sessions belong to (the audit records name them). */
export interface SessionOwner {
  id: string;
  username: string;
}

/**
 * Seeing and ending one's sessions (GET/DELETE /api/auth/sessions) and an administrator's logout of a
 * user (crm-admin users logout). Ending a session revokes its row; the auth-change trigger tells every
 * instance at commit, so the session stops working everywhere at once, cached or not.
 */
export class SessionManagement {
  constructor(
    private readonly deps: {
      sessions: SessionRepository;
      transactions: Transactions;
      audit: AuditService;
    },
  ) {}

  /** The user's open sessions (not revoked, not expired), the most recently used first. */
  async list(userId: string, currentSessionId?: string): Promise<SessionSummary[]> {
    const rows = await this.deps.sessions.listOpen(userId);
    return rows.map((s) => summarize(s, currentSessionId));
  }

  /** Ends one session of the user's own; another user's session, or one already ended, is "not found". */
  async revokeOwn(owner: SessionOwner, sessionId: string, currentSessionId: string, meta: RequestMeta): Promise<{ current: boolean }> {
    await this.deps.transactions.run(async (tx) => {
      const ended = await this.deps.sessions.revokeOpen(sessionId, owner.id, 'user_revoked', tx);
      if (!ended) throw new NotFoundError(NOT_FOUND);
      await this.deps.audit.record(
        { action: AuditActions.sessionRevoked, userId: owner.id, username: owner.username, details: { sessionId, current: sessionId === currentSessionId } },
        meta,
        tx,
      );
    });
    return { current: sessionId === currentSessionId };
  }

  /** Ends every session of the user but the one the request came with; answers how many ended. */
  revokeOthers(owner: SessionOwner, currentSessionId: string, meta: RequestMeta): Promise<number> {
    return this.deps.transactions.run(async (tx) => {
      const revoked = await this.deps.sessions.revokeAllForUser(owner.id, 'user_revoked_others', currentSessionId, tx);
      await this.deps.audit.record(
        { action: AuditActions.otherSessionsRevoked, userId: owner.id, username: owner.username, details: { revokedSessions: revoked, kept: currentSessionId } },
        meta,
        tx,
      );
      return revoked;
    });
  }

  /** An administrator logs a user out everywhere (the account stays usable: they may log in again). */
  revokeAll(owner: SessionOwner, meta: RequestMeta): Promise<number> {
    return this.deps.transactions.run(async (tx) => {
      const revoked = await this.deps.sessions.revokeAllForUser(owner.id, 'admin_logout', undefined, tx);
      await this.deps.audit.record({ action: AuditActions.userLoggedOut, userId: owner.id, username: owner.username, details: { revokedSessions: revoked } }, meta, tx);
      return revoked;
    });
  }
}

function summarize(s: Session, currentSessionId: string | undefined): SessionSummary {
  return {
    id: s.id,
    current: s.id === currentSessionId,
    createdAt: s.createdAt,
    lastUsedAt: s.lastUsedAt,
    ip: s.ip,
    userAgent: s.userAgent,
    rememberMe: s.rememberMe,
    expiresAt: s.expiresAt,
  };
}
