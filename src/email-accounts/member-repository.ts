import { aliasedList, selectList, type AliasedRow, type ColumnOf, type ColumnType, type TableRow } from '../db/rows.js';
import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { EmailAccount } from '../models/index.js';
import { offsetOf, type Page, type PageRequest } from '../shared/pagination.js';
import type { AccountRole } from './account-rights.js';

/** One user's access to one email account, as the API and the CLI show it. */
export interface MemberRecord {
  emailAccountId: string;
  userId: string;
  username: string;
  firstName: string | null;
  lastName: string | null;
  role: AccountRole;
  canRead: boolean;
  canSend: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** The caller's membership of an account and whether it carries the right that was asked about. */
export interface AccessRow {
  emailAccountId: string;
  /** email_accounts.user_id: contacts and emails rows of the account carry it. */
  ownerId: string;
  role: AccountRole;
  canRead: boolean;
  canSend: boolean;
  allowed: boolean;
}

export interface MemberRights {
  role: AccountRole;
  canRead: boolean;
  canSend: boolean;
}

/** What sharing needs of the account row. */
const HEAD_FIELDS = { id: 'id', ownerId: 'user_id', email: 'email', isPrimary: 'is_primary' } as const;
export type AccountHead = AliasedRow<'email_accounts', typeof HEAD_FIELDS>;
const HEAD = aliasedList('email_accounts', HEAD_FIELDS);

/** Where an access question starts: the account itself, or a contact or email of it. */
export type AccessTarget = { accountId: string } | { contactId: string } | { emailId: string };

const MEMBER_FIELDS = ['email_account_id', 'user_id', 'role', 'can_read', 'can_send', 'created_at', 'updated_at'] as const satisfies readonly ColumnOf<'email_account_members'>[];
const MEMBER_USER_FIELDS = ['username', 'first_name', 'last_name'] as const satisfies readonly ColumnOf<'users'>[];
type MemberRow = TableRow<'email_account_members', (typeof MEMBER_FIELDS)[number], { role: AccountRole }> & TableRow<'users', (typeof MEMBER_USER_FIELDS)[number]>;
const MEMBER_COLUMNS = `${selectList(MEMBER_FIELDS, 'm')}, ${selectList(MEMBER_USER_FIELDS, 'u')}`;

const toRecord = (r: MemberRow): MemberRecord => ({
  emailAccountId: r.email_account_id,
  userId: r.user_id,
  username: r.username,
  firstName: r.first_name,
  lastName: r.last_name,
  role: r.role,
  canRead: r.can_read,
  canSend: r.can_send,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

function accountOf(target: AccessTarget): string {
  if ('accountId' in target) return '$accountId::uuid';
  if ('contactId' in target) return '(SELECT k.email_account_id FROM contacts k WHERE k.id = $contactId)';
  return '(SELECT e.email_account_id FROM emails e WHERE e.id = $emailId)';
}

/**
 * All data access of email_account_members: access questions (the right's SQL condition comes from
 * account-rights.ts through EmailAccountAccess), the member lists, and the writes of sharing.
 */
export class EmailAccountMemberRepository {
  constructor(private readonly sql: Sql) {}

  /** The caller's row for the target's account, with `allowed` = the given condition on it; undefined: no membership. */
  async access(userId: string, target: AccessTarget, condition: string, tx?: Tx): Promise<AccessRow | undefined> {
    const row = await this.sql.one<
      TableRow<'email_account_members', 'email_account_id' | 'role' | 'can_read' | 'can_send', { role: AccountRole }> & {
        owner_id: ColumnType<'email_accounts', 'user_id'>;
        allowed: boolean;
      }
    >(
      `SELECT m.email_account_id, a.user_id AS owner_id, m.role, m.can_read, m.can_send, ${condition} AS allowed
         FROM email_account_members m JOIN email_accounts a ON a.id = m.email_account_id
        WHERE m.user_id = $userId AND m.email_account_id = ${accountOf(target)}`,
      { userId, ...target },
      tx,
    );
    return row && { emailAccountId: row.email_account_id, ownerId: row.owner_id, role: row.role, canRead: row.can_read, canSend: row.can_send, allowed: row.allowed };
  }

  /** Those of the given accounts on which the condition holds for the caller (whole rows, for JMAP clients). */
  async accountsWhere(userId: string, accountIds: readonly string[], condition: string, tx?: Tx): Promise<EmailAccount[]> {
    const rows = await this.sql.select<{ id: string }>(
      `SELECT m.email_account_id AS id FROM email_account_members m
        WHERE m.user_id = $userId AND m.email_account_id = ANY($accountIds::uuid[]) AND ${condition}`,
      { userId, accountIds },
      tx,
    );
    return rows.length === 0 ? [] : EmailAccount.findAll({ where: { id: rows.map((r) => r.id) }, transaction: tx });
  }

  /** Every account the user is a member of, with their rights on it. */
  async membershipsOf(userId: string, tx?: Tx): Promise<Map<string, MemberRights>> {
    const rows = await this.sql.select<TableRow<'email_account_members', 'email_account_id' | 'role' | 'can_read' | 'can_send', { role: AccountRole }>>(
      'SELECT m.email_account_id, m.role, m.can_read, m.can_send FROM email_account_members m WHERE m.user_id = $userId',
      { userId },
      tx,
    );
    return new Map(rows.map((r) => [r.email_account_id, { role: r.role, canRead: r.can_read, canSend: r.can_send }]));
  }

  /** The account's owner, address and primary flag, or undefined. */
  findAccount(accountId: string, tx?: Tx): Promise<AccountHead | undefined> {
    return this.sql.one(`SELECT ${HEAD} FROM email_accounts WHERE id = $accountId`, { accountId }, tx);
  }

  /** The same, locked FOR UPDATE: every change of the account's shares takes turns on it. */
  lockAccount(accountId: string, tx: Tx): Promise<AccountHead | undefined> {
    return this.sql.one(`SELECT ${HEAD} FROM email_accounts WHERE id = $accountId FOR UPDATE`, { accountId }, tx);
  }

  /**
   * Waits for the sync batch writing this account right now (it holds the account's sync state row
   * until it commits; see ContactRepository.serialiseAccountChanges) and keeps the next one out until
   * this transaction ends.
   */
  async awaitSyncBatch(accountId: string, tx: Tx): Promise<void> {
    await this.sql.execute('SELECT 1 FROM mail_sync_states WHERE email_account_id = $accountId FOR UPDATE', { accountId }, tx);
  }

  /** The user (id, username), held FOR KEY SHARE so a deletion running now cannot pass under a new share. */
  findUser(userId: string, tx: Tx): Promise<{ id: string; username: string } | undefined> {
    return this.sql.one('SELECT id, username FROM users WHERE id = $userId FOR KEY SHARE', { userId }, tx);
  }

  async find(accountId: string, userId: string, tx?: Tx): Promise<MemberRecord | undefined> {
    const row = await this.sql.one<MemberRow>(
      `SELECT ${MEMBER_COLUMNS} FROM email_account_members m JOIN users u ON u.id = m.user_id
        WHERE m.email_account_id = $accountId AND m.user_id = $userId`,
      { accountId, userId },
      tx,
    );
    return row && toRecord(row);
  }

  /** The members of an account: the owner first, then by username. */
  async list(accountId: string, page: PageRequest, tx?: Tx): Promise<Page<MemberRecord>> {
    const bind = { accountId, limit: page.limit, offset: offsetOf(page) };
    // One after the other: a request holds at most one pool connection at a time (ADR 0121).
    const rows = await this.sql.select<MemberRow>(
      `SELECT ${MEMBER_COLUMNS} FROM email_account_members m JOIN users u ON u.id = m.user_id
        WHERE m.email_account_id = $accountId
        ORDER BY (m.role = 'owner') DESC, lower(u.username), m.user_id LIMIT $limit OFFSET $offset`,
      bind,
      tx,
    );
    const count = await this.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM email_account_members WHERE email_account_id = $accountId', bind, tx);
    return { items: rows.map(toRecord), total: count!.n };
  }

  async insert(accountId: string, userId: string, rights: MemberRights, createdBy: string | null, tx: Tx): Promise<void> {
    await this.sql.execute(
      `INSERT INTO email_account_members (email_account_id, user_id, role, can_read, can_send, created_by)
       VALUES ($accountId, $userId, $role, $canRead, $canSend, $createdBy)`,
      { accountId, userId, ...rights, createdBy },
      tx,
    );
  }

  async update(accountId: string, userId: string, rights: MemberRights, tx: Tx): Promise<number> {
    return this.sql.execute(
      `UPDATE email_account_members SET role = $role, can_read = $canRead, can_send = $canSend, updated_at = now()
        WHERE email_account_id = $accountId AND user_id = $userId`,
      { accountId, userId, ...rights },
      tx,
    );
  }

  async delete(accountId: string, userId: string, tx: Tx): Promise<number> {
    return this.sql.execute('DELETE FROM email_account_members WHERE email_account_id = $accountId AND user_id = $userId', { accountId, userId }, tx);
  }

  /**
   * Makes `to` the owner of the account in every place that names the owner: its member rows (the old
   * owner stays as an editor with every right; `to` is added when not a member yet), the account row,
   * and, through the (email_account_id, user_id) foreign keys' ON UPDATE CASCADE (migration 0018), the
   * account's contacts and emails in the same statement. The caller holds the account's locks.
   */
  async transferOwnership(accountId: string, from: string, to: string, tx: Tx): Promise<void> {
    const bind = { accountId, from, to };
    await this.sql.execute(`UPDATE email_account_members SET role = 'editor', updated_at = now() WHERE email_account_id = $accountId AND user_id = $from`, bind, tx);
    await this.sql.execute(
      `INSERT INTO email_account_members (email_account_id, user_id, role, can_read, can_send) VALUES ($accountId, $to, 'owner', true, true)
       ON CONFLICT (email_account_id, user_id) DO UPDATE SET role = 'owner', can_read = true, can_send = true, updated_at = now()`,
      bind,
      tx,
    );
    // Primary is per owner: the account becomes the new owner's primary only if they have none.
    await this.sql.execute(
      `UPDATE email_accounts SET user_id = $to, updated_at = now(),
              is_primary = NOT EXISTS (SELECT 1 FROM email_accounts p WHERE p.user_id = $to AND p.is_primary)
        WHERE id = $accountId`,
      bind,
      tx,
    );
  }

  /** The accounts the user owns that someone else is also a member of. */
  sharedAccountsOwnedBy(userId: string, tx?: Tx): Promise<Array<{ emailAccountId: string; email: string; members: number }>> {
    return this.sql.select(
      `SELECT a.id AS "emailAccountId", a.email, (SELECT count(*) FROM email_account_members o WHERE o.email_account_id = a.id AND o.user_id <> a.user_id)::int AS members
         FROM email_accounts a
        WHERE a.user_id = $userId AND EXISTS (SELECT 1 FROM email_account_members o WHERE o.email_account_id = a.id AND o.user_id <> a.user_id)
        ORDER BY a.created_at`,
      { userId },
      tx,
    );
  }

  /** The user's shares of other people's accounts (not the accounts they own). */
  async sharesOf(userId: string, tx?: Tx): Promise<Array<MemberRecord & { email: string }>> {
    const rows = await this.sql.select<MemberRow & { email: string }>(
      `SELECT ${MEMBER_COLUMNS}, a.email FROM email_account_members m JOIN users u ON u.id = m.user_id JOIN email_accounts a ON a.id = m.email_account_id
        WHERE m.user_id = $userId AND m.role <> 'owner' ORDER BY a.created_at`,
      { userId },
      tx,
    );
    return rows.map((r) => ({ ...toRecord(r), email: r.email }));
  }
}
