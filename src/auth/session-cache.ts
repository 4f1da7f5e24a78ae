import type { Transaction } from 'sequelize';
import type { ListenerHandlers } from '../db/pg-listener.js';
import type { ListenerSubscription } from '../db/shared-listener.js';
import type { Logger } from '../logging/logger.js';
import { EmailAccount, Session, User } from '../models/index.js';
import type { SessionRepository, UserRow } from './session-repository.js';

/**
 * Must match the channel of the triggers in migrations/0002-auth.ts and 0018-real-foreign-keys.ts:
 * crm_notify_auth_change() (users, sessions; 0002) and crm_notify_account_owners() (email_accounts;
 * 0018) pg_notify the changed user's id.
 */
export const AUTH_CHANGE_CHANNEL = 'crm_auth_changed';
export const AUTH_TRIGGERS: readonly string[] = [
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
/** A database whose triggers were missing is asked again after this long. */
const TRIGGER_CHECK_RETRY_MS = 30_000;

/** What a session check answers: the user's row, and whether the user has an active email account. */
export interface CheckedSession {
  user: UserRow;
  hasActiveEmailAccount: boolean;
}

interface Entry<V> {
  userId: string;
  session: V;
  until: number;
}

/** Every cache of the process, so that writes through Sequelize here evict at once (see installHooks). */
const liveCaches = new Set<{ evictUser(userId: string): void; clear(): void }>();

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
export class SessionCache<V extends CheckedSession = CheckedSession> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly byUser = new Map<string, Set<string>>();
  private generation = 0;
  private readonly listener: ListenerSubscription;
  /** True while LISTEN is in place: only then is anything served from or stored in the cache. */
  private listenerUp = false;
  private triggersChecked = false;
  private nextCheckAt = 0;

  constructor(
    /** The process's LISTEN connection (src/db/shared-listener.ts), subscribed to the auth channel. */
    listen: (channels: string[], handlers: ListenerHandlers) => ListenerSubscription,
    private readonly sessions: Pick<SessionRepository, 'countTriggers'>,
    private readonly logger?: Logger,
    /** The triggers whose notifications keep this cache right (API tokens add theirs: migration 0040). */
    private readonly triggers: readonly string[] = AUTH_TRIGGERS,
  ) {
    this.listener = listen([AUTH_CHANGE_CHANNEL], {
      notification: (_channel, userId) => {
        if (userId) this.evictUser(userId);
      },
      // Whatever changed while nobody listened is unknown: start empty.
      connected: () => {
        this.clear();
        this.listenerUp = true;
      },
      lost: () => {
        this.listenerUp = false;
        this.clear();
      },
    });
    installHooks();
    liveCaches.add(this);
  }

  /** The listener starts on first use: crm-admin commands never authenticate requests, so never open it. */
  get(sessionId: string, userId: string): V | undefined {
    if (!this.listenerUp) {
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

  /** An entry by its key alone, with whose it is (an API token: its hash tells the user only through the entry). */
  lookup(key: string): { userId: string; value: V } | undefined {
    if (!this.listenerUp) {
      this.connect();
      return undefined;
    }
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= Date.now()) {
      this.evictSession(key);
      return undefined;
    }
    return { userId: entry.userId, value: entry.session };
  }

  /** Taken before the database read; null while the cache is not safe to fill. */
  ticket(): number | null {
    return this.listenerUp ? this.generation : null;
  }

  put(ticket: number | null, sessionId: string, userId: string, session: V, sessionExpiresAt: Date): void {
    if (ticket === null || ticket !== this.generation || !this.listenerUp) return;
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
    return this.listenerUp;
  }

  private evictSession(sessionId: string): void {
    const entry = this.entries.get(sessionId);
    this.entries.delete(sessionId);
    if (entry) this.byUser.get(entry.userId)?.delete(sessionId);
  }

  /**
   * The first use checks once that the auth-change triggers exist (a database not migrated would
   * never invalidate anything), then starts the listener; PgListener reconnects by itself after a loss.
   */
  private connect(): void {
    if (this.triggersChecked) {
      void this.listener.start();
      return;
    }
    if (Date.now() < this.nextCheckAt) return;
    this.nextCheckAt = Date.now() + TRIGGER_CHECK_RETRY_MS;
    void this.sessions.countTriggers([...this.triggers]).then(
      (found) => {
        if (found < this.triggers.length) {
          this.logger?.warn('session cache off: auth-change triggers missing (migrations not applied)');
          return;
        }
        this.triggersChecked = true;
        return this.listener.start();
      },
      (err: unknown) => this.logger?.warn('session cache off: no auth-change listener', { error: err instanceof Error ? err.message : String(err) }),
    );
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
  // Bulk hooks receive only the options: a write scoped to one user (where: { userId } on sessions
  // and email accounts, where: { id } on users) evicts that user; any other evicts every entry.
  const bulk = (key: 'id' | 'userId') => (options: unknown) => {
    const where = (options as { where?: Record<string, unknown> } | undefined)?.where;
    const only = where?.[key];
    afterWrite(() => (typeof only === 'string' ? only : undefined))(undefined, options as { transaction?: Transaction | null });
  };
  for (const [model, key] of [
    [User, 'id'],
    [Session, 'userId'],
    [EmailAccount, 'userId'],
  ] as const) {
    hooks.push([model, 'afterBulkUpdate', bulk(key)]);
    hooks.push([model, 'afterBulkDestroy', bulk(key)]);
  }
  for (const [model, type, fn] of hooks) {
    const m = model as unknown as { removeHook(t: string, n: string): void; addHook(t: string, n: string, f: (...args: unknown[]) => void): void };
    m.removeHook(type, 'sessionCache');
    m.addHook(type, 'sessionCache', fn as (...args: unknown[]) => void);
  }
}
