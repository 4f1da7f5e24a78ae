import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { assertNoOpenTransaction } from '../db/transaction-scope.js';
import { resolveDestination, type Lookup, type PrivateAllowList } from './webhook-address.js';

/** A receiver has this long to answer (headers and the first bytes of the body). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Of the answer's body we read at most this much (and keep none of it). */
const MAX_BODY_BYTES = 4096;

export interface SendResult {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * One POST to a receiver. node:http rather than fetch: it follows no redirect by construction (a 3xx
 * is an answer like any other, so not a success), and its `lookup` option pins the connection to the
 * address checked here, so a second DNS answer cannot switch it (the TLS name stays the host's).
 */
export class WebhookSender {
  constructor(
    private readonly allow: PrivateAllowList,
    private readonly lookup?: Lookup,
    private readonly timeoutMs = WEBHOOK_TIMEOUT_MS,
  ) {}

  async send(request: WebhookRequest): Promise<SendResult> {
    assertNoOpenTransaction('webhook delivery');
    const started = Date.now();
    const done = (statusCode: number | null, error: string | null): SendResult => ({ statusCode, error, durationMs: Date.now() - started });
    let url: URL;
    try {
      url = new URL(request.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return done(null, 'refused: only http and https');
    } catch {
      return done(null, 'invalid url');
    }
    let pinned: { address: string; family: 4 | 6 };
    try {
      pinned = await resolveDestination(url, this.allow, this.lookup);
    } catch (err) {
      return done(null, (err as Error).message);
    }
    const pin: LookupFunction = (_host, options, callback) => {
      if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
      else callback(null, pinned.address, pinned.family);
    };
    try {
      const statusCode = await this.post(url, request, pin);
      return done(statusCode, null);
    } catch (err) {
      return done(null, (err as Error).message);
    }
  }

  private post(url: URL, request: WebhookRequest, lookup: LookupFunction): Promise<number> {
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<number>((resolve, reject) => {
      const req = client.request(
        url,
        {
          method: 'POST',
          lookup,
          agent: false,
          headers: { ...request.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(request.body)), 'user-agent': 'crm-webhooks' },
          signal: AbortSignal.timeout(this.timeoutMs),
        },
        (res) => {
          let read = 0;
          const status = res.statusCode ?? 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read >= MAX_BODY_BYTES) {
              res.destroy();
              resolve(status);
            }
          });
          res.on('end', () => resolve(status));
          res.on('error', () => resolve(status));
          res.on('close', () => resolve(status));
        },
      );
      req.on('error', (err) => reject(err.name === 'AbortError' ? new Error(`timeout after ${this.timeoutMs} ms`) : err));
      req.end(request.body);
    });
  }
}
