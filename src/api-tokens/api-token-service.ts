import { ConflictError, NotFoundError, ValidationError } from '../errors/app-errors.js';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { SessionCache } from '../auth/session-cache.js';
import type { Transactions } from '../db/transactions.js';
import type { Role, User } from '../models/index.js';
import type { Page, PageRequest } from '../shared/pagination.js';
import { ADMIN_SCOPE_REFUSED, API_TOKEN_NOT_FOUND, EXPIRY_IN_PAST, TOO_MANY_TOKENS } from './api-token-messages.js';
import type { ApiTokenCheck, ApiTokenRecord, ApiTokenRepository } from './api-token-repository.js';
import type { TokenScope } from './api-token-scopes.js';
import { hasApiTokenShape, hashApiToken, newApiTokenSecret } from './api-token-secret.js';

/** lastUsedAt and the `api_token.used` audit record: at most once per token in this many seconds. */
export const USE_RECORD_SECONDS = 600;
/** A safety net against a script minting tokens in a loop; nobody needs more. */
export const MAX_TOKENS_PER_USER = 50;

export interface ApiTokenOwner {
  id: string;
  username: string;
  role: Role;
}

export interface NewApiToken {
  name: string;
  scopes: TokenScope[];
  expiresAt?: Date | null;
}

/** What the auth middleware needs of a token: whose it is, the user now, what it may do. */
export interface ApiTokenCaller {
  user: User;
  hasActiveEmailAccount: boolean;
  tokenId: string;
  scopes: readonly string[];
}

/** What the cache keeps per token: a session check's shape plus the token itself. */
type CachedToken = { user: Record<string, unknown>; hasActiveEmailAccount: boolean; token: ApiTokenRecord };

export interface ApiTokenServiceDeps {
  tokens: ApiTokenRepository;
  transactions: Transactions;
  audit: AuditService;
  /** Checked tokens in memory, invalidated like sessions (LISTEN/NOTIFY, migration 0040). */
  cache?: SessionCache<CachedToken>;
}

const cacheKey = (tokenHash: string) => `pat:${tokenHash}`;
/** A token without expiry is cached like one that expires after the cache's own TTL. */
const NO_EXPIRY = new Date(8.64e15);

/**
 * Personal API tokens (issue 48): created by their user (HTTP), listed and revoked by them or by an
 * administrator (crm-admin tokens), checked on every request that carries one. The secret exists
 * only in the answer to its creation; the table holds its SHA-256.
 */
export class ApiTokenService {
  constructor(private readonly deps: ApiTokenServiceDeps) {}

  /** A token never has more than its user: only an admin's may carry `admin` (checked again on every request). */
  async create(owner: ApiTokenOwner, input: NewApiToken, meta: RequestMeta): Promise<{ token: string; apiToken: ApiTokenRecord }> {
    if (input.scopes.includes('admin') && owner.role !== 'admin') {
      throw new ValidationError(ADMIN_SCOPE_REFUSED, [{ field: 'scopes', message: ADMIN_SCOPE_REFUSED }]);
    }
    const expiresAt = input.expiresAt ?? null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) throw new ValidationError(EXPIRY_IN_PAST, [{ field: 'expiresAt', message: EXPIRY_IN_PAST }]);
    const scopes = [...new Set(input.scopes)].sort();
    const secret = newApiTokenSecret();
    const apiToken = await this.deps.transactions.run(async (tx) => {
      if ((await this.deps.tokens.countOfUser(owner.id, tx)) >= MAX_TOKENS_PER_USER) throw new ConflictError(TOO_MANY_TOKENS);
      const created = await this.deps.tokens.insert({ userId: owner.id, name: input.name, tokenHash: hashApiToken(secret), scopes, expiresAt }, tx);
      await this.deps.audit.record(
        { action: AuditActions.apiTokenCreated, userId: owner.id, username: owner.username, details: { tokenId: created.id, name: created.name, scopes, expiresAt } },
        meta,
        tx,
      );
      return created;
    });
    return { token: secret, apiToken };
  }

  /** `userId` null: every user's tokens (administrators, crm-admin tokens list). */
  list(userId: string | null, page: PageRequest): Promise<Page<ApiTokenRecord>> {
    return this.deps.tokens.list(userId, page);
  }

  /** One token by id, whoever's (crm-admin tokens revoke shows what it is about to end). */
  async get(id: string): Promise<ApiTokenRecord> {
    const token = await this.deps.tokens.findById(id);
    if (!token) throw new NotFoundError(API_TOKEN_NOT_FOUND);
    return token;
  }

  /**
   * Ends a token at once: its row goes, the auth-change trigger tells every instance at commit, and
   * this one forgets it before answering. `ownerId`: only that user's token (someone else's id is 404);
   * null for an administrator.
   */
  async revoke(id: string, ownerId: string | null, meta: RequestMeta): Promise<ApiTokenRecord> {
    const revoked = await this.deps.transactions.run(async (tx) => {
      const gone = await this.deps.tokens.delete(id, ownerId, tx);
      if (!gone) throw new NotFoundError(API_TOKEN_NOT_FOUND);
      await this.deps.audit.record(
        { action: AuditActions.apiTokenRevoked, userId: gone.userId, username: gone.username, details: { tokenId: gone.id, name: gone.name, byOwner: ownerId !== null } },
        meta,
        tx,
      );
      return gone;
    });
    this.deps.cache?.evictUser(revoked.userId);
    return revoked;
  }

  /**
   * The caller a Bearer API token names, or null (unknown, revoked, expired, its user disabled or
   * deleted). Served from memory when checked recently and nothing about it changed since; the
   * use is recorded only on a database read, at most once per token in USE_RECORD_SECONDS.
   * `meta` is asked for only then (a cached check builds nothing it does not need).
   */
  async authenticate(secret: string, meta: () => RequestMeta): Promise<ApiTokenCaller | null> {
    if (!hasApiTokenShape(secret)) return null;
    const { cache, tokens } = this.deps;
    const tokenHash = hashApiToken(secret);
    const key = cacheKey(tokenHash);
    const cached = cache?.lookup(key)?.value;
    if (cached) return this.caller(cached);
    const ticket = cache?.ticket() ?? null;
    const found = await tokens.findUsable(tokenHash);
    if (!found) return null;
    const { token } = found;
    if (!token.lastUsedAt || Date.now() - token.lastUsedAt.getTime() >= USE_RECORD_SECONDS * 1000) {
      if (await tokens.touch(token.id, USE_RECORD_SECONDS)) {
        await this.deps.audit.record(
          { action: AuditActions.apiTokenUsed, userId: token.userId, username: token.username, details: { tokenId: token.id, name: token.name } },
          { ...meta(), actor: `user:${token.userId}` },
        );
      }
    }
    cache?.put(ticket, key, token.userId, found, token.expiresAt ?? NO_EXPIRY);
    return this.caller(found);
  }

  /**
   * Whether a token that authenticated a request still stands, asked of the database and never of the
   * cache (another instance may have revoked it): a long request (a send whose files upload for
   * minutes) asks again before it acts (src/sending/email-sender-service.ts).
   */
  stillUsable(tokenId: string, userId: string): Promise<boolean> {
    return this.deps.tokens.stillUsable(tokenId, userId);
  }

  /** For tests and health: whether checked tokens are being served from memory. */
  cacheStats(): { listening: boolean; entries: number } {
    return { listening: this.deps.cache?.listening ?? false, entries: this.deps.cache?.size ?? 0 };
  }

  private caller(checked: ApiTokenCheck): ApiTokenCaller {
    return {
      user: this.deps.tokens.userFromRow(checked.user),
      hasActiveEmailAccount: checked.hasActiveEmailAccount,
      tokenId: checked.token.id,
      scopes: checked.token.scopes,
    };
  }
}
