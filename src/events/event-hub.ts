import { AUTH_CHANGE_CHANNEL } from '../auth/session-cache.js';
import type { MemberRights } from '../email-accounts/member-repository.js';
import { AuthenticationError, RateLimitError, ServiceUnavailableError } from '../errors/app-errors.js';
import type { Logger } from '../logging/logger.js';
import type { EventSink, StreamEnd } from './event-sink.js';
import type { EventMetrics } from './event-metrics.js';
import type { OutboxEvent } from './event-types.js';
import { OutboxFollower } from './outbox-follower.js';
import { EVENTS_CHANNEL, type OutboxRepository } from './outbox-repository.js';
import type { ListenerHandlers } from '../db/pg-listener.js';
import { planReplay } from './replay.js';
import { Subscriber } from './subscriber.js';

export const TOO_MANY_STREAMS = 'Príliš veľa otvorených spojení živých aktualizácií; zatvorte niektorú kartu';
export const EVENTS_UNAVAILABLE = 'Živé aktualizácie sú dočasne nedostupné';

/** What the hub needs to know about a session: whether it stands, until when, and for whom. */
export type SessionCheck = (sessionId: string, userId: string) => Promise<{ expiresAt: Date } | undefined>;

export interface EventHubDeps {
  outbox: OutboxRepository;
  memberships: (userId: string) => Promise<Map<string, MemberRights>>;
  /** Read from the database every time (never a cache): it decides whether a stream goes on. */
  session: SessionCheck;
  /** The LISTEN connection (src/db/pg-listener.ts), made with the hub's handlers. */
  listen: (channels: string[], handlers: ListenerHandlers) => { start(): Promise<void>; close(): Promise<void>; readonly listening: boolean };
  metrics?: (openStreams: () => number) => EventMetrics;
  logger?: Logger;
  maxStreamsPerUser: number;
  heartbeatMs?: number;
}

/**
 * The live updates of one API process (docs/adr/0101-events-outbox.md): one LISTEN connection, one
 * reader of the outbox, and the open streams in memory. Every event is judged for every stream
 * against that stream's current rights; nothing is buffered per stream beyond what its socket holds.
 * Started by the first stream, so crm-admin commands and `serve --no-api` never open the connection.
 */
export class EventHub {
  private readonly byUser = new Map<string, Set<Subscriber>>();
  private readonly follower: OutboxFollower;
  private readonly listener: ReturnType<EventHubDeps['listen']>;
  private readonly metrics?: EventMetrics;
  private started = false;
  /** The catch-up after the LISTEN connection (re)opened, until it is done. */
  private resuming?: Promise<void>;
  private ready = false;
  private heartbeat?: NodeJS.Timeout;
  private closed = false;
  /** Events written since the last count, by type: one counter update per fan-out, not one per stream. */
  private readonly sent = new Map<OutboxEvent['type'], number>();

  constructor(private readonly deps: EventHubDeps) {
    this.follower = new OutboxFollower(deps.outbox, { dispatch: (e) => this.dispatch(e), resyncAll: (r) => this.resyncAll(r) }, deps.logger);
    this.metrics = deps.metrics?.(() => this.openStreams);
    this.listener = deps.listen([EVENTS_CHANNEL, AUTH_CHANGE_CHANNEL], {
      notification: (channel, payload) => {
        if (channel === EVENTS_CHANNEL) this.follower.wake();
        else if (payload) void this.recheckSessions(this.byUser.get(payload));
      },
      connected: () => {
        this.resuming = this.reconnected();
      },
      lost: () => (this.ready = false),
    });
  }

  get openStreams(): number {
    let n = 0;
    for (const set of this.byUser.values()) n += set.size;
    return n;
  }

  get listening(): boolean {
    return this.ready;
  }

  /**
   * Opens a stream for an authenticated caller: 429 beyond the per-user limit, 503 while the database
   * cannot be listened to. Resolves once the stream is live (head sent, replay written).
   */
  async subscribe(who: { userId: string; sessionId: string }, lastEventId: string | undefined, sink: EventSink): Promise<void> {
    if (this.closed) throw new ServiceUnavailableError(EVENTS_UNAVAILABLE);
    if ((this.byUser.get(who.userId)?.size ?? 0) >= this.deps.maxStreamsPerUser) throw new RateLimitError(TOO_MANY_STREAMS, 30);
    await this.start();
    if (!this.ready || this.follower.cursor === undefined) throw new ServiceUnavailableError(EVENTS_UNAVAILABLE);
    // Registered before anything is read: whatever happens from here on reaches it (queued until it is ready).
    const sub = new Subscriber(who.userId, who.sessionId, new Date(8.64e15), sink, (type) => this.sent.set(type, (this.sent.get(type) ?? 0) + 1));
    const registeredAt = this.follower.cursor;
    this.register(sub);
    try {
      const session = await this.deps.session(who.sessionId, who.userId);
      if (!session) throw new AuthenticationError();
      sub.sessionExpiresAt = session.expiresAt;
      sub.rights = await this.deps.memberships(who.userId);
      const plan = await planReplay(this.deps.outbox, lastEventId, registeredAt);
      if (sub.ended) return;
      sink.open();
      if (plan.resync) sink.send(null, 'resync', { reason: plan.resync });
      sub.skipUpTo = plan.skipUpTo;
      for (const event of plan.events) if (!sub.deliver(event)) return this.end(sub, 'slow');
      if (!sub.release()) this.end(sub, 'slow');
      this.countSent();
    } catch (err) {
      this.unregister(sub);
      throw err;
    }
  }

  /** Ends every stream and the LISTEN connection (graceful shutdown); new streams get 503. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    for (const set of [...this.byUser.values()]) for (const sub of [...set]) this.end(sub, 'shutdown');
    this.follower.stop();
    await this.listener.close();
  }

  private async start(): Promise<void> {
    if (!this.started) {
      this.started = true;
      this.heartbeat = setInterval(() => this.beat(), this.deps.heartbeatMs ?? 25_000);
      this.heartbeat.unref();
    }
    // After a loss the connection comes back by itself; a new stream only nudges it.
    if (!this.ready) await this.listener.start();
    await this.resuming;
  }

  private async reconnected(): Promise<void> {
    try {
      await this.follower.resume();
      this.ready = true;
      // Sessions may have ended while nobody listened.
      for (const set of this.byUser.values()) void this.recheckSessions(set);
    } catch (err) {
      this.deps.logger?.warn('events outbox not readable; trying again', { error: err instanceof Error ? err.message : String(err) });
      // Still listening: try the catch-up again shortly (a lost connection reconnects and comes back here).
      const again = setTimeout(() => {
        if (this.listener.listening && !this.ready && !this.closed) this.resuming = this.reconnected();
      }, 1000);
      again.unref();
    }
  }

  private dispatch(event: OutboxEvent): void {
    this.metrics?.lag.observe(Math.max(0, (Date.now() - event.createdAt.getTime()) / 1000));
    const started = process.hrtime.bigint();
    // Events addressed to one user (their membership, their follow-up, their task) go to that user's streams only.
    const addressed = event.type === 'membership.changed' || event.type === 'follow_up.due' || event.type === 'task.due' || event.type === 'task.assigned';
    const targets = addressed ? (this.byUser.get(event.userId ?? '') ?? []) : this.allSubscribers();
    for (const sub of targets) if (!sub.offer(event)) this.end(sub, sub.ready ? 'slow' : 'overflow');
    this.metrics?.fanout.observe(Number(process.hrtime.bigint() - started) / 1e9);
    this.countSent();
  }

  private countSent(): void {
    for (const [type, n] of this.sent) this.metrics?.eventsSent.inc({ type }, n);
    this.sent.clear();
  }

  private resyncAll(reason: 'outbox_gap' | 'window_exceeded'): void {
    for (const sub of this.allSubscribers()) {
      if (!sub.ready) continue;
      if (!sub.sink.send(null, 'resync', { reason })) this.end(sub, 'slow');
      // Rights may have changed in what was missed.
      else
        void this.deps
          .memberships(sub.userId)
          .then((rights) => (sub.rights = rights))
          .catch(() => this.end(sub, 'session'));
    }
  }

  /** A user or session changed (auth-change notification): streams whose session no longer stands end. */
  private async recheckSessions(subs: Set<Subscriber> | undefined): Promise<void> {
    for (const sub of [...(subs ?? [])]) {
      try {
        const session = await this.deps.session(sub.sessionId, sub.userId);
        if (!session) this.end(sub, 'session');
        else sub.sessionExpiresAt = session.expiresAt;
      } catch (err) {
        this.deps.logger?.warn('events: session re-check failed', { error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  private beat(): void {
    const now = Date.now();
    for (const sub of this.allSubscribers()) {
      if (!sub.ready) continue;
      if (sub.sessionExpiresAt.getTime() <= now) this.end(sub, 'session');
      else if (!sub.sink.comment('')) this.end(sub, 'slow');
    }
  }

  private *allSubscribers(): Generator<Subscriber> {
    for (const set of [...this.byUser.values()]) yield* [...set];
  }

  private register(sub: Subscriber): void {
    let set = this.byUser.get(sub.userId);
    if (!set) this.byUser.set(sub.userId, (set = new Set()));
    set.add(sub);
    sub.sink.onClose(() => this.end(sub, 'client'));
  }

  private unregister(sub: Subscriber): void {
    const set = this.byUser.get(sub.userId);
    set?.delete(sub);
    if (set?.size === 0) this.byUser.delete(sub.userId);
  }

  private end(sub: Subscriber, reason: StreamEnd): void {
    if (sub.ended) return;
    sub.ended = true;
    this.unregister(sub);
    this.metrics?.streamsEnded.inc({ reason });
    sub.sink.close();
  }
}
