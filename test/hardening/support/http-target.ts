import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export interface RawRequest {
  method: string;
  /** Already encoded: the fuzzers decide what goes over the wire. */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The parsed body when it is JSON, else undefined. */
  json: unknown;
}

export interface HttpTarget {
  url: string;
  send(request: RawRequest): Promise<RawResponse>;
  close(): Promise<void>;
}

/** Far longer than any answer takes; a request still open after this is a hang, which is a failure. */
const HANG_MS = 15_000;

/**
 * One listening server for thousands of requests over keep-alive connections: supertest opens a
 * server per request, which would spend the fuzzing budget on listen/close instead of requests.
 */
export async function serveApp(app: Express): Promise<HttpTarget> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const target = httpTarget(`http://127.0.0.1:${port}`);
  return {
    ...target,
    async close() {
      await target.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A client for a server that runs elsewhere (a crm-admin serve child). */
export function httpTarget(baseUrl: string, options: { hangMs?: number } = {}): HttpTarget {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const base = new URL(baseUrl);
  const hangMs = options.hangMs ?? HANG_MS;
  return {
    url: baseUrl,
    send: (req) => sendRaw(agent, base, req, hangMs),
    async close() {
      agent.destroy();
    },
  };
}

function sendRaw(agent: http.Agent, base: URL, req: RawRequest, hangMs: number): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
    const headers: Record<string, string> = { ...(req.headers ?? {}) };
    if (body && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) headers['Content-Length'] = String(body.length);
    const outgoing = http.request({ agent, host: base.hostname, port: base.port, method: req.method, path: req.path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        if (/json/.test(String(res.headers['content-type'] ?? ''))) {
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    const timer = setTimeout(() => {
      outgoing.destroy(new Error(`no answer within ${hangMs} ms: ${req.method} ${req.path}`));
    }, hangMs);
    outgoing.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    outgoing.end(body);
  });
}
