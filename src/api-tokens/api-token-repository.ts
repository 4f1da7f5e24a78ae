import { aliasedList, type AliasedRow, type ColumnType } from '../db/rows.js';
import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { User } from '../models/index.js';
import { offsetOf, type Page, type PageRequest } from '../shared/pagination.js';

const TOKEN_FIELDS = {
  id: 'id',
  userId: 'user_id',
  name: 'name',
  scopes: 'scopes',
  expiresAt: 'expires_at',
  lastUsedAt: 'last_used_at',
  createdAt: 'created_at',
} as const;

/** A token as it may be shown: never its secret, never its hash. `username`: the owner's login name (the admin list). */
export type ApiTokenRecord = AliasedRow<'api_tokens', typeof TOKEN_FIELDS> & { username: ColumnType<'users', 'username'> };

/** What a request authenticated by a token carries: the token and its user's row as it is now. */
export interface ApiTokenCheck {
  token: ApiTokenRecord;
  user: Record<string, unknown>;
  hasActiveEmailAccount: boolean;
}

const COLUMNS = `${aliasedList('api_tokens', TOKEN_FIELDS, 't')}, u.username`;

/** The api_tokens table (migration 0040): every query of the area. */
export class ApiTokenRepository {
  private checkSql?: string;

  constructor(private readonly sql: Sql) {}

  async insert(values: { userId: string; name: string; tokenHash: string; scopes: string[]; expiresAt: Date | null }, tx?: Tx): Promise<ApiTokenRecord> {
    const row = await this.sql.one<ApiTokenRecord>(
      `WITH t AS (
         INSERT INTO api_tokens (user_id, name, token_hash, scopes, expires_at) VALUES ($userId, $name, $tokenHash, $scopes::text[], $expiresAt)
         RETURNING *)
       SELECT ${COLUMNS} FROM t JOIN users u ON u.id = t.user_id`,
      values,
      tx,
    );
    return row!;
  }

  countOfUser(userId: string, tx?: Tx): Promise<number> {
    return this.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM api_tokens WHERE user_id = $userId', { userId }, tx).then((r) => r!.n);
  }

  /** Newest first; `userId` null: every user's (the admin list). */
  async list(userId: string | null, page: PageRequest): Promise<Page<ApiTokenRecord>> {
    const where = 'WHERE ($userId::uuid IS NULL OR t.user_id = $userId::uuid)';
    const items = await this.sql.select<ApiTokenRecord>(
      `SELECT ${COLUMNS} FROM api_tokens t JOIN users u ON u.id = t.user_id ${where} ORDER BY t.created_at DESC, t.id LIMIT $limit OFFSET $offset`,
      { userId, limit: page.limit, offset: offsetOf(page) },
    );
    const count = await this.sql.one<{ n: number }>(`SELECT count(*)::int AS n FROM api_tokens t ${where}`, { userId });
    return { items, total: count!.n };
  }

  findById(id: string): Promise<ApiTokenRecord | undefined> {
    return this.sql.one<ApiTokenRecord>(`SELECT ${COLUMNS} FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.id = $id`, { id });
  }

  /** Deletes the token (only `userId`'s when given) and answers what it was, or undefined. */
  async delete(id: string, userId: string | null, tx?: Tx): Promise<ApiTokenRecord | undefined> {
    return this.sql.one<ApiTokenRecord>(
      `WITH t AS (DELETE FROM api_tokens WHERE id = $id AND ($userId::uuid IS NULL OR user_id = $userId::uuid) RETURNING *)
       SELECT ${COLUMNS} FROM t JOIN users u ON u.id = t.user_id`,
      { id, userId },
      tx,
    );
  }

  /**
   * The token of this hash, if it still stands (not expired, its user not disabled), with its user's
   * row: one indexed lookup (api_tokens_token_hash), the same columns as a session check reads.
   */
  async findUsable(tokenHash: string): Promise<ApiTokenCheck | undefined> {
    const row = await this.sql.one<Record<string, unknown>>(this.checkQuery(), { tokenHash });
    if (!row) return undefined;
    const { tokenId, tokenName, tokenScopes, tokenExpiresAt, tokenLastUsedAt, tokenCreatedAt, hasActiveEmailAccount, ...user } = row;
    const token: ApiTokenRecord = {
      id: tokenId as string,
      userId: user.id as string,
      username: user.username as string,
      name: tokenName as string,
      scopes: tokenScopes as string[],
      expiresAt: tokenExpiresAt as Date | null,
      lastUsedAt: tokenLastUsedAt as Date | null,
      createdAt: tokenCreatedAt as Date,
    };
    return { token, user, hasActiveEmailAccount: hasActiveEmailAccount === true };
  }

  /** Whether the token still stands (not revoked, not expired, its user not disabled or deleted), read from the database. */
  async stillUsable(id: string, userId: string): Promise<boolean> {
    const row = await this.sql.one<{ ok: number }>(
      `SELECT 1 AS ok FROM api_tokens t JOIN users u ON u.id = t.user_id
        WHERE t.id = $id AND t.user_id = $userId AND (t.expires_at IS NULL OR t.expires_at > now()) AND u.disabled_at IS NULL`,
      { id, userId },
    );
    return row !== undefined;
  }

  /**
   * Records the use now unless one was recorded less than `minSeconds` ago; answers whether it wrote.
   * At most one write per token and interval however many requests (and instances) race for it.
   */
  async touch(id: string, minSeconds: number): Promise<boolean> {
    const count = await this.sql.execute(
      `UPDATE api_tokens SET last_used_at = now() WHERE id = $id AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => $minSeconds))`,
      { id, minSeconds },
    );
    return count === 1;
  }

  /** What findAll does with its rows: a persisted instance, not a new record. */
  userFromRow(row: Record<string, unknown>): User {
    return User.build(row as never, { raw: true, isNewRecord: false });
  }

  private checkQuery(): string {
    if (!this.checkSql) {
      const columns = Object.entries(User.getAttributes()).map(([name, attribute]) => `u."${attribute.field ?? name}" AS "${name}"`);
      this.checkSql = `SELECT ${columns.join(', ')}, t.id AS "tokenId", t.name AS "tokenName", t.scopes AS "tokenScopes",
               t.expires_at AS "tokenExpiresAt", t.last_used_at AS "tokenLastUsedAt", t.created_at AS "tokenCreatedAt",
               EXISTS (SELECT 1 FROM email_accounts a WHERE a.user_id = u.id AND a.is_active) AS "hasActiveEmailAccount"
        FROM api_tokens t JOIN users u ON u.id = t.user_id
        WHERE t.token_hash = $tokenHash AND (t.expires_at IS NULL OR t.expires_at > now()) AND u.disabled_at IS NULL`;
    }
    return this.checkSql;
  }
}
