import http from 'node:http';

export interface SseEvent {
  id?: string;
  event: string;
  // Tests read the fields of each event type directly.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
}

/**
 * A minimal server-sent events client for the tests (what EventSource does, minus reconnecting):
 * http.get, the response parsed line by line into events, comments counted. Resolves once the
 * response head arrived, i.e. once the server has set the stream up (it sends the head only then).
 */
export class SseClient {
  readonly events: SseEvent[] = [];
  comments = 0;
  closed = false;
  private waiters: Array<() => void> = [];
  private constructor(
    readonly res: http.IncomingMessage,
    private readonly req: http.ClientRequest,
  ) {}

  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const req = http.get(url, { headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
        const client = new SseClient(res, req);
        if (res.statusCode === 200) client.read();
        resolve(client);
      });
      req.on('error', reject);
    });
  }

  get status(): number {
    return this.res.statusCode ?? 0;
  }

  /** The JSON body of a refusal (the error envelope). */
  async body(): Promise<unknown> {
    let text = '';
    for await (const chunk of this.res) text += String(chunk);
    return JSON.parse(text);
  }

  /**
   * The first event (from the start of the stream) matching, or a failure after `timeoutMs`: a
   * deadline for a loaded machine, not a speed the test asserts.
   */
  waitFor(match: (e: SseEvent) => boolean, timeoutMs = 15_000, what = 'an event'): Promise<SseEvent> {
    return this.until(() => this.events.find(match), timeoutMs, `${what}; got ${JSON.stringify(this.events.map((e) => e.event))}`);
  }

  /** Resolves when the server ended the stream, or fails after `timeoutMs`. */
  async waitClosed(timeoutMs = 15_000): Promise<void> {
    await this.until(() => (this.closed ? true : undefined), timeoutMs, 'the stream to end');
  }

  close(): void {
    this.req.destroy();
  }

  private until<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const attempt = () => {
        const found = check();
        if (found === undefined) return false;
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`gave up after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const waiter = () => {
        if (attempt()) this.waiters = this.waiters.filter((w) => w !== waiter);
      };
      if (!attempt()) this.waiters.push(waiter);
    });
  }

  private read(): void {
    let buffer = '';
    let current: { id?: string; event?: string; data: string[] } = { data: [] };
    this.res.setEncoding('utf8');
    this.res.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (line === '') {
          if (current.data.length > 0) this.events.push({ id: current.id, event: current.event ?? 'message', data: JSON.parse(current.data.join('\n')) });
          current = { data: [] };
        } else if (line.startsWith(':')) {
          this.comments++;
        } else {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') current.id = value;
          else if (field === 'event') current.event = value;
          else if (field === 'data') current.data.push(value);
        }
      }
      this.notify();
    });
    const ended = () => {
      this.closed = true;
      this.notify();
    };
    this.res.on('end', ended);
    this.res.on('close', ended);
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
