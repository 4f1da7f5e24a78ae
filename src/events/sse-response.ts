import type http from 'node:http';
import type { EventSink } from './event-sink.js';
import type { EventType } from './event-types.js';

/**
 * A client whose socket holds more than this unsent is dropped: it reconnects with Last-Event-ID when
 * it is back, instead of the server buffering for it without bound (a heartbeat is 3 bytes, an event
 * a few hundred: this is hundreds of events nobody read).
 */
export const MAX_UNSENT_BYTES = 256 * 1024;
/**
 * The bytes of an event's frame, made once per event and written to every stream that may see it
 * (the payload object is shared by all of them): a fan-out to 1,000 streams encodes once, not 1,000 times.
 */
const frames = new WeakMap<object, { id: number | null; frame: Buffer }>();

function frameOf(id: number | null, type: EventType, data: unknown): Buffer {
  const cacheable = typeof data === 'object' && data !== null;
  const cached = cacheable ? frames.get(data) : undefined;
  if (cached && cached.id === id) return cached.frame;
  const frame = Buffer.from(`${id === null ? '' : `id: ${id}\n`}event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  if (cacheable) frames.set(data, { id, frame });
  return frame;
}

/** EventSource waits this long before reconnecting (after a drop, a shutdown, a network cut). */
const RETRY_MS = 2_000;

/**
 * An EventSink over an HTTP response, as text/event-stream (the WHATWG HTML "server-sent events"
 * format): `id:`, `event:`, one `data:` line of JSON, a blank line. No compression middleware runs in
 * this service (a gzip layer would hold events back until its buffer fills), and proxies are told
 * not to buffer (X-Accel-Buffering: no).
 */
export class SseResponse implements EventSink {
  private closeListeners: Array<() => void> = [];
  private gone = false;

  constructor(
    private readonly res: http.ServerResponse,
    private readonly maxUnsent = MAX_UNSENT_BYTES,
  ) {
    res.once('close', () => this.finished());
  }

  open(): void {
    this.res.socket?.setNoDelay(true);
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      // no-store as every authenticated answer (auth-middleware.ts); no-cache as SSE clients expect.
      'Cache-Control': 'no-cache, no-store',
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    });
    this.write(`retry: ${RETRY_MS}\n\n`);
  }

  send(id: number | null, type: EventType, data: unknown): boolean {
    return this.write(frameOf(id, type, data));
  }

  comment(text: string): boolean {
    return this.write(`:${text}\n\n`);
  }

  close(): void {
    if (this.gone) return;
    if (this.res.headersSent) this.res.end();
    else this.res.destroy();
  }

  onClose(listener: () => void): void {
    if (this.gone) listener();
    else this.closeListeners.push(listener);
  }

  private write(chunk: string | Buffer): boolean {
    if (this.gone) return true;
    this.res.write(chunk);
    // write() answering false only says the kernel buffer is full; a bounded backlog behind it is fine.
    if (this.res.writableLength <= this.maxUnsent) return true;
    // Ending would wait for the backlog to drain: cut the connection instead.
    this.res.destroy();
    return false;
  }

  private finished(): void {
    if (this.gone) return;
    this.gone = true;
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
