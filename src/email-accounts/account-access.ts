import { COUNT_BOUND } from '../shared/pagination.js';
import type { Tx } from '../db/transactions.js';
import { ForbiddenError, NotFoundError } from '../errors/app-errors.js';
import type { EmailAccount } from '../models/index.js';
import { CONTACT_NOT_FOUND } from '../contacts/contact-records.js';
import { accessToAccount, accessToContact, deniedMessage, rightCondition, type AccountRight } from './account-rights.js';
import type { AccessRow, AccessTarget, EmailAccountMemberRepository } from './member-repository.js';

export const ACCOUNT_NOT_FOUND = 'Emailový účet neexistuje';

export type { AccountRight, AccountRole } from './account-rights.js';
export type { AccessRow } from './member-repository.js';

/**
 * "May user U do X on email account A?" for every area (email accounts, contacts, emails, sharing).
 * The rules are account-rights.ts; this asks them for one account, reached directly or through one of
 * its contacts or emails. An account the caller is not a member of is simply not there (404, no
 * existence leak); a member without the right gets a 403 that names what is missing.
 */
export class EmailAccountAccess {
  constructor(private readonly members: EmailAccountMemberRepository) {}

  /** The caller's membership of the account, if it carries the right. */
  requireAccount(userId: string, accountId: string, right: AccountRight, tx?: Tx): Promise<AccessRow> {
    return this.require(userId, { accountId }, right, ACCOUNT_NOT_FOUND, tx);
  }

  /**
   * The account the caller may SEND from (a member with canSend; docs/contract.md §4.5),
   * with its stored credentials for the JMAP client; 404 for an account not shared with them, 403 without canSend.
   */
  sendingAccount(userId: string, accountId: string, tx?: Tx): Promise<EmailAccount> {
    return this.accountWith(userId, accountId, 'send', tx);
  }

  /** The account whose mail content (attachments) the caller may read (canRead), for the JMAP download. */
  readableAccount(userId: string, accountId: string, tx?: Tx): Promise<EmailAccount> {
    return this.accountWith(userId, accountId, 'readEmails', tx);
  }

  private async accountWith(userId: string, accountId: string, right: AccountRight, tx?: Tx): Promise<EmailAccount> {
    const [account] = await this.accountsWith(userId, [accountId], right, tx);
    if (account) return account;
    // Only a refusal pays for the second lookup, which tells a non-member (404) from a member without the right (403).
    await this.requireAccount(userId, accountId, right, tx);
    throw new NotFoundError(ACCOUNT_NOT_FOUND);
  }

  /** The caller's membership of the contact's account, if it carries the right. */
  requireContact(userId: string, contactId: string, right: AccountRight, tx?: Tx): Promise<AccessRow> {
    return this.require(userId, { contactId }, right, CONTACT_NOT_FOUND, tx);
  }

  /** The caller's membership of the email's account, if it carries the right. */
  requireEmail(userId: string, emailId: string, right: AccountRight, notFound: string, tx?: Tx): Promise<AccessRow> {
    return this.require(userId, { emailId }, right, notFound, tx);
  }

  /** Those of the given accounts on which the caller has the right; any other id is left out. */
  accountsWith(userId: string, accountIds: readonly string[], right: AccountRight, tx?: Tx): Promise<EmailAccount[]> {
    return this.members.accountsWhere(userId, accountIds, rightCondition(right), tx);
  }

  private async require(userId: string, target: AccessTarget, right: AccountRight, notFound: string, tx?: Tx): Promise<AccessRow> {
    const row = await this.members.access(userId, target, rightCondition(right), tx);
    decide(row ? row.allowed : null, right, notFound);
    return row!;
  }
}

/** null / undefined: not the caller's to see (404); false: visible without the right (403). */
export function decide(allowed: boolean | null | undefined, right: AccountRight, notFound: string): void {
  if (allowed === null || allowed === undefined) throw new NotFoundError(notFound);
  if (!allowed) throw new ForbiddenError(deniedMessage(right), 'email_account_forbidden');
}

/**
 * A list's count query (of `rowsSql`, a SELECT 1 of the list's rows) that also answers the caller's right on the contact / account filter (see
 * accessToAccount). The page query runs beside it and is scoped by the same right, so it finds nothing
 * the caller may not see: one round trip to the database instead of a check first and the list after.
 */
export function countWithAccess(rowsSql: string, filter: { contactId?: string; emailAccountId?: string }, right: AccountRight): string {
  // Counted up to one past the bound: the cost of a count stays flat however large the list grows.
  const checks = [`(SELECT count(*) FROM (${rowsSql} LIMIT ${COUNT_BOUND + 1}) AS counted)::int AS total`];
  if (filter.contactId) checks.push(`${accessToContact(right)} AS contact_access`);
  if (filter.emailAccountId) checks.push(`${accessToAccount(right)} AS account_access`);
  return `SELECT ${checks.join(', ')}`;
}

export interface CountRow {
  total: number;
  /** Present only when the list was filtered by a contact / an account (null: not the caller's). */
  contact_access?: boolean | null;
  account_access?: boolean | null;
  /** Present only when the list was filtered by a person (GET /api/emails?personId=): whether the caller sees them. */
  person_access?: boolean | null;
}

/** The total of a countWithAccess() row, or the 404 / 403 for a filter id the caller may not list. */
export function totalOrDenied(row: CountRow, right: AccountRight): number {
  if ('contact_access' in row) decide(row.contact_access, right, CONTACT_NOT_FOUND);
  if ('account_access' in row) decide(row.account_access, right, ACCOUNT_NOT_FOUND);
  return row.total;
}
