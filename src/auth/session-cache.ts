import pg from 'pg';
import type { Sequelize, Transaction } from 'sequelize';
import type { Logger } from '../logging/logger.js';
import { EmailAccount, Session, User } from '../models/index.js';
import type { SessionRepository, UserRow } from './session-repository.js';

/** Must match the channel of the triggers in migrations/0002-auth.ts and 0018-real-foreign-keys.ts. */
export const AUTH_CHANGE_CHANNEL = 'crm_auth_changed';
const TRIGGERS = [
  'users_notify_auth_change',
  'sessions_notify_auth_update',
  'sessions_notify_auth_delete',
  // Migration 0018: a user's active email accounts (needsEmailSetup) are cached with the session.
  'email_accounts_notify_auth_change',
  'email_accounts_notify_auth_update',
];
/** A safety net only: changes arrive as notifications long before this. */
const ENTRY_TTL_MS = 60_000;
const MAX_ENTRIES = 50_000;
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/** What a session check answers: the user's row, and whether the user has an active email account. */
export interface CheckedSession {
  user: UserRow;
  hasActiveEmailAccount: boolean;
}

interface Entry {
  userId: string;
  session: CheckedSession;
  until: number;
}

/** Every cache of the process, so that writes through Sequelize here evict at once (see installHooks). */
const liveCaches = new Set<SessionCache>();

/**
 * Sessions checked recently, so an authenticated request needs no query. Correctness rests on
 * invalidation, not on the TTL: triggers (migration 0002) NOTIFY every instance at commit of any change
 * to a user or to a session's validity; until this instance LISTENs (and whenever that connection is
 * lost) nothing is served from or stored in the cache. A generation number drops reads that raced with
 * an invalidation, so a row read just before a revocation is never stored after it.
 * It holds sessions and user rows only, never email-account permissions: shares are read from
 * email_account_members by every request (src/email-accounts/account-rights.ts), so an unshare needs
 * no invalidation here.
 */
export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byUser = new Map<string, Set<string>>();
  private generation = 0;
  private listener?: pg.Client;
  private connecting = false;
  private nextAttemptAt = 0;
  private retryMs = RETRY_MIN_MS;

  constructor(
    /** Only for the connection settings of the LISTEN client. */
    private readonly sequelize: Sequelize,
    private readonly sessions: Pick<SessionRepository, 'countTriggers'>,
    private readonly logger?: Logger,
  ) {
    installHooks();
    liveCaches.add(this);
  }

  /** The listener starts on first use: crm-admin commands never authenticate requests, so never open it. */
  get(sessionId: string, userId: string): CheckedSession | undefined {
    if (!this.listener) {
      this.connect();
      return undefined;
    }
    const entry = this.entries.get(sessionId);
    if (!entry) return undefined;
    if (entry.userId !== userId || entry.until <= Date.now()) {
      this.evictSession(sessionId);
      return undefined;
    }
    return entry.session;
  }

  /** Taken before the database read; null while the cache is not safe to fill. */
  ticket(): number | null {
    return this.listener ? this.generation : null;
  }

  put(ticket: number | null, sessionId: string, userId: string, session: CheckedSession, sessionExpiresAt: Date): void {
    if (ticket === null || ticket !== this.generation || !this.listener) return;
    if (this.entries.size >= MAX_ENTRIES) this.evictSession(this.entries.keys().next().value!);
    this.entries.set(sessionId, { userId, session, until: Math.min(Date.now() + ENTRY_TTL_MS, sessionExpiresAt.getTime()) });
    let sessions = this.byUser.get(userId);
    if (!sessions) this.byUser.set(userId, (sessions = new Set()));
    sessions.add(sessionId);
  }

  evictUser(userId: string): void {
    this.generation++;
    for (const sessionId of this.byUser.get(userId) ?? []) this.entries.delete(sessionId);
    this.byUser.delete(userId);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.byUser.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  get listening(): boolean {
    return this.listener !== undefined;
  }

  private evictSession(sessionId: string): void {
    const entry = this.entries.get(sessionId);
    this.entries.delete(sessionId);
    if (entry) this.byUser.get(entry.userId)?.delete(sessionId);
  }

  private connect(): void {
    if (this.connecting || Date.now() < this.nextAttemptAt) return;
    this.connecting = true;
    void this.listen().finally(() => {
      this.connecting = false;
    });
  }

  private async listen(): Promise<void> {
    const config = this.sequelize.config;
    const client = new pg.Client({
      ...(config.dialectOptions as pg.ClientConfig),
      host: config.host,
      port: Number(config.port),
      user: config.username,
      password: config.password ?? undefined,
      database: config.database,
      application_name: 'staff-crm-auth-listener',
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    client.on('notification', (msg) => {
      if (msg.channel === AUTH_CHANGE_CHANNEL && msg.payload) this.evictUser(msg.payload);
    });
    try {
      await client.connect();
      // Never the reason a process stays alive (graceful shutdown, CLI).
      (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
      if ((await this.sessions.countTriggers(TRIGGERS)) < TRIGGERS.length) throw new Error('auth-change triggers missing (migration 0002 not applied)');
      await client.query(`LISTEN ${AUTH_CHANGE_CHANNEL}`);
      this.clear();
      this.listener = client;
      this.retryMs = RETRY_MIN_MS;
    } catch (err) {
      this.backOff(err);
      client.removeAllListeners('end');
      await client.end().catch(() => {});
    }
  }

  private lost(client: pg.Client, err?: Error): void {
    if (this.listener !== client) return;
    this.listener = undefined;
    this.clear();
    this.backOff(err ?? new Error('connection ended'));
    void client.end().catch(() => {});
  }

  private backOff(err: unknown): void {
    this.nextAttemptAt = Date.now() + this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    this.logger?.warn('session cache off: no auth-change listener', { error: err instanceof Error ? err.message : String(err) });
  }
}

/**
 * Writes made through Sequelize in this process evict synchronously, so a request that follows a
 * logout or a role change here never waits for the notification. Named hooks: installing again
 * (every SessionService construction, or after models were re-initialised) replaces, never doubles.
 */
function installHooks(): void {
  const evict = (userId: string | undefined) => {
    for (const cache of liveCaches) {
      if (userId) cache.evictUser(userId);
      else cache.clear();
    }
  };
  // Evict now and again at commit: a request between the two may have read the old row and stored it.
  const afterWrite = (userIdOf: (instance: unknown) => string | undefined) => (instance: unknown, options?: { transaction?: Transaction | null }) => {
    const userId = userIdOf(instance);
    evict(userId);
    options?.transaction?.afterCommit(() => evict(userId));
  };
  const hooks: Array<[typeof User | typeof Session | typeof EmailAccount, string, ReturnType<typeof afterWrite>]> = [
    [User, 'afterSave', afterWrite((u) => (u as User).id)],
    [User, 'afterDestroy', afterWrite((u) => (u as User).id)],
    [Session, 'afterUpdate', afterWrite((s) => (s as Session).userId)],
    [Session, 'afterDestroy', afterWrite((s) => (s as Session).userId)],
    // The session row carries whether its user has an active email account (needsEmailSetup).
    [EmailAccount, 'afterSave', afterWrite((a) => (a as EmailAccount).userId)],
    [EmailAccount, 'afterDestroy', afterWrite((a) => (a as EmailAccount).userId)],
  ];
  // Bulk hooks receive only the options: no instance, so every entry goes.
  const bulk = (options?: { transaction?: Transaction | null }) => afterWrite(() => undefined)(undefined, options);
  for (const model of [User, Session, EmailAccount]) {
    hooks.push([model, 'afterBulkUpdate', (options) => bulk(options as never)]);
    hooks.push([model, 'afterBulkDestroy', (options) => bulk(options as never)]);
  }
  for (const [model, type, fn] of hooks) {
    const m = model as unknown as { removeHook(t: string, n: string): void; addHook(t: string, n: string, f: (...args: unknown[]) => void): void };
    m.removeHook(type, 'sessionCache');
    m.addHook(type, 'sessionCache', fn as (...args: unknown[]) => void);
  }
}
