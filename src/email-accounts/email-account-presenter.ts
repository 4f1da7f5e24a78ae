import type { EmailAccount, MailSyncState } from '../models/index.js';
import type { MemberRecord, MemberRights } from './member-repository.js';
import type { MemberView } from './email-account-schemas.js';
import type { EmailAccountResponse } from './email-account-responses.js';

/**
 * The account as the frontend sees it: never the password, with its sync status. For a member it
 * also carries their `role` and rights on it (docs/contract.md §4.3); `isPrimary` is the
 * owner's choice and so true only in the owner's own view.
 */
export function presentEmailAccount(account: EmailAccount & { syncState?: MailSyncState | null; access?: MemberRights }): EmailAccountResponse {
  const { access } = account;
  return {
    id: account.id,
    email: account.email,
    jmapAccountId: account.jmapAccountId,
    isPrimary: account.isPrimary && (!access || access.role === 'owner'),
    isActive: account.isActive,
    ...(access ? { role: access.role, canRead: access.canRead, canSend: access.canSend } : {}),
    createdAt: account.createdAt,
    updatedAt: account.updatedAt,
    sync: presentSyncState(account.syncState),
  };
}

/** An account that never synced yet has no row: it reads as idle, never tried. */
function presentSyncState(sync: MailSyncState | null | undefined): EmailAccountResponse['sync'] {
  return {
    status: sync?.status ?? 'idle',
    lastSuccessAt: sync?.lastSuccessAt ?? null,
    lastAttemptAt: sync?.lastAttemptAt ?? null,
    lastError: sync?.lastError ?? null,
    consecutiveFailures: sync?.consecutiveFailures ?? 0,
    nextAttemptAt: sync?.nextAttemptAt ?? null,
  };
}

export type EmailAccountView = EmailAccountResponse;

/** A member of an email account (the sharing endpoints and `crm-admin email-accounts members`). */
export function presentMember(member: MemberRecord): MemberView {
  return {
    emailAccountId: member.emailAccountId,
    userId: member.userId,
    username: member.username,
    firstName: member.firstName,
    lastName: member.lastName,
    role: member.role,
    canRead: member.canRead,
    canSend: member.canSend,
    createdAt: member.createdAt,
    updatedAt: member.updatedAt,
  };
}
