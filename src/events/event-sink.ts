import type { EventType } from './event-types.js';

/**
 * One client's stream as the hub sees it: the HTTP side (src/events/sse-response.ts) writes it as
 * server-sent events. The hub knows nothing of HTTP, so it can be driven by tests and benchmarks too.
 */
export interface EventSink {
  /** The stream is set up: send the response head. Called once, before any event. */
  open(): void;
  /** One event; false when the client does not keep up (its buffer is over the bound): the hub drops it. */
  send(id: number | null, type: EventType, data: unknown): boolean;
  /** A comment line (heartbeat); false as for send. */
  comment(text: string): boolean;
  /** Ends the stream (the client may reconnect with Last-Event-ID). */
  close(): void;
  /** Called once when the stream is gone, whoever ended it. */
  onClose(listener: () => void): void;
}

/** Why a stream ended, as the metrics count it. */
export type StreamEnd = 'client' | 'session' | 'slow' | 'shutdown' | 'overflow';
