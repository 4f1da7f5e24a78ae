import type { Sequelize } from 'sequelize';
import type { Logger } from '../logging/logger.js';
import { PgListener, type ListenerHandlers } from './pg-listener.js';

/** What a subscriber holds: the shape of a PgListener of its own (start, close, listening). */
export interface ListenerSubscription {
  readonly listening: boolean;
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * One LISTEN connection per process (ADR 0113), shared by the session cache (auth channel) and the
 * event hub (events and auth): each subscriber gets the notifications of its channels and hears
 * `connected`/`lost` like the owner of a connection. The connection opens when the first subscriber
 * starts (a crm-admin command never does) and closes when the last started one closes.
 */
export class SharedListener {
  private readonly subscribers = new Set<{ channels: Set<string>; handlers: ListenerHandlers; started: boolean }>();
  private readonly listener: PgListener;

  constructor(sequelize: Sequelize, channels: string[], logger?: Logger) {
    this.listener = new PgListener(
      sequelize,
      channels,
      {
        notification: (channel, payload) => {
          for (const s of this.subscribers) if (s.started && s.channels.has(channel)) s.handlers.notification(channel, payload);
        },
        connected: () => {
          for (const s of this.subscribers) if (s.started) s.handlers.connected();
        },
        lost: (err) => {
          for (const s of this.subscribers) if (s.started) s.handlers.lost(err);
        },
      },
      logger,
      'shared',
    );
  }

  subscribe(channels: string[], handlers: ListenerHandlers): ListenerSubscription {
    const entry = { channels: new Set(channels), handlers, started: false };
    this.subscribers.add(entry);
    const listener = this.listener;
    const subscribers = this.subscribers;
    return {
      get listening() {
        return entry.started && listener.listening;
      },
      async start() {
        if (!subscribers.has(entry)) return;
        if (!entry.started) {
          entry.started = true;
          // Joining a connection that is already up: this subscriber's catch-up starts now.
          if (listener.listening) handlers.connected();
        }
        await listener.start();
      },
      async close() {
        subscribers.delete(entry);
        if (![...subscribers].some((s) => s.started)) await listener.close();
      },
    };
  }
}
