import type { EmailAccount, MailSyncState } from '../models/index.js';
import type { EmailAccountResponse } from './email-account-responses.js';

/** The account as the frontend sees it: never the password, with its sync status. */
export function presentEmailAccount(account: EmailAccount & { syncState?: MailSyncState | null }): EmailAccountResponse {
  const sync = account.syncState;
  return {
    id: account.id,
    email: account.email,
    jmapAccountId: account.jmapAccountId,
    isPrimary: account.isPrimary,
    isActive: account.isActive,
    createdAt: account.createdAt,
    updatedAt: account.updatedAt,
    sync: {
      status: sync?.status ?? 'idle',
      lastSuccessAt: sync?.lastSuccessAt ?? null,
      lastAttemptAt: sync?.lastAttemptAt ?? null,
      lastError: sync?.lastError ?? null,
      consecutiveFailures: sync?.consecutiveFailures ?? 0,
      nextAttemptAt: sync?.nextAttemptAt ?? null,
    },
  };
}

export type EmailAccountView = EmailAccountResponse;
