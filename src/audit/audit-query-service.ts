import type { AuditLog } from '../models/index.js';
import type { Page, PageRequest } from '../shared/pagination.js';
import type { UserRepository } from '../users/user-repository.js';
import type { AuditFilter, AuditRepository } from './audit-repository.js';

export interface AuditQuery extends PageRequest {
  userId?: string;
  /** Records about a user by name: also finds those of deleted users (their user_id is gone, the name stays). */
  username?: string;
  /** Exact action, or a prefix when it ends in "*" (e.g. "admin.*"). */
  action?: string;
  /** Inclusive lower bound. */
  since?: Date;
  /** Exclusive upper bound, so consecutive windows never count a record twice. */
  until?: Date;
  success?: boolean;
}

/** Reading the audit trail, newest first; the admin API and `crm-admin audit list` share it. */
export class AuditQueryService {
  constructor(
    private readonly records: AuditRepository,
    private readonly users: Pick<UserRepository, 'findIdByUsername'>,
  ) {}

  async list(query: AuditQuery): Promise<Page<AuditLog>> {
    const filter: AuditFilter = { userId: query.userId, since: query.since, until: query.until, success: query.success, ...actionFilter(query.action) };
    if (query.username) filter.about = { username: query.username, userId: await this.users.findIdByUsername(query.username) };
    return this.records.list(filter, { page: query.page, limit: query.limit });
  }
}

/** "admin.*" is every action that starts with "admin."; anything else is one exact action. */
export function actionFilter(action: string | undefined): Pick<AuditFilter, 'action' | 'actionPrefix'> {
  if (!action) return {};
  return action.endsWith('*') ? { actionPrefix: action.slice(0, -1) } : { action };
}
