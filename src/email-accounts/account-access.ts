import type { Tx } from '../db/transactions.js';
import { NotFoundError } from '../errors/app-errors.js';
import { EmailAccount } from '../models/index.js';
import { CONTACT_NOT_FOUND } from '../contacts/contact-records.js';

export const ACCOUNT_NOT_FOUND = 'Emailový účet neexistuje';

/**
 * The caller's own email accounts, as the contacts and emails areas check them before they touch an
 * account id. Another user's account is simply not there: no existence leak, no "forbidden".
 */
export class EmailAccountAccess {
  /** The caller's email account id, or a 404 for anyone else's: no existence leak, no "forbidden". */
  async requireOwn(userId: string, accountId: string, tx?: Tx): Promise<string> {
    const account = await EmailAccount.findOne({ where: { id: accountId, userId }, attributes: ['id'], transaction: tx });
    if (!account) throw new NotFoundError(ACCOUNT_NOT_FOUND);
    return account.id;
  }

  /**
   * The account the caller may SEND from, or a 404. The one place that decides it: today the owner
   * only; sharing (design.md, canSend) redefines it here and every send follows.
   */
  async requireCanSend(userId: string, accountId: string, tx?: Tx): Promise<EmailAccount> {
    const account = await EmailAccount.findOne({ where: { id: accountId, userId }, transaction: tx });
    if (!account) throw new NotFoundError(ACCOUNT_NOT_FOUND);
    return account;
  }

  /**
   * The account whose mail content (attachments) the caller may READ, or a 404. Today the owner
   * only; sharing (canRead) redefines it here.
   */
  async requireCanRead(userId: string, accountId: string, tx?: Tx): Promise<EmailAccount> {
    const account = await EmailAccount.findOne({ where: { id: accountId, userId }, transaction: tx });
    if (!account) throw new NotFoundError(ACCOUNT_NOT_FOUND);
    return account;
  }

  /** Those of the given accounts that are the caller's; any other id is left out. */
  findOwn(userId: string, accountIds: readonly string[], tx?: Tx): Promise<EmailAccount[]> {
    return EmailAccount.findAll({ where: { id: [...accountIds], userId }, transaction: tx });
  }
}

/**
 * A list's count query that also says whether the contact / account filter is the caller's own.
 * The page query runs beside it (it is scoped by user id itself, so it finds nothing of anyone
 * else): one round trip to the database instead of a check first and the list after.
 */
export function countWithOwnership(countSql: string, filter: { contactId?: string; emailAccountId?: string }): string {
  const checks = [`(${countSql})::int AS total`];
  if (filter.contactId) checks.push('EXISTS (SELECT 1 FROM contacts k WHERE k.id = $contactId AND k.user_id = $userId) AS contact_found');
  if (filter.emailAccountId) checks.push('EXISTS (SELECT 1 FROM email_accounts a WHERE a.id = $accountId AND a.user_id = $userId) AS account_found');
  return `SELECT ${checks.join(', ')}`;
}

export interface CountRow {
  total: number;
  contact_found?: boolean;
  account_found?: boolean;
}

/** The total of a countWithOwnership() row, or the 404 for a filter id that is not the caller's. */
export function totalOrNotFound(row: CountRow): number {
  if (row.contact_found === false) throw new NotFoundError(CONTACT_NOT_FOUND);
  if (row.account_found === false) throw new NotFoundError(ACCOUNT_NOT_FOUND);
  return row.total;
}
