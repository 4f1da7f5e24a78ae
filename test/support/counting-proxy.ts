/**
 * A tiny HTTP proxy in front of the test Cyrus that counts what each mail account asks of it: every
 * HTTP request, by the Basic-auth user, with the JMAP method names of API requests. Tests and
 * benchmarks point a sync at `sessionUrl` to measure its cost on the wire, not by its own account.
 * The original Host header is kept, so Cyrus's absolute redirect (/.well-known/jmap -> /jmap) leads
 * back through the proxy; a Location naming the upstream directly is rewritten too.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  user: string | null;
  method: string;
  path: string;
  /** JMAP method names of an API request, in order; empty for anything else. */
  calls: string[];
}

export interface CountingProxy {
  /** The upstream session URL's path on the proxy. */
  sessionUrl: string;
  requests: ProxiedRequest[];
  /** Requests of this user since the last reset. */
  countFor(user: string): number;
  /** Requests per user since the last reset. */
  counts(): Map<string, number>;
  reset(): void;
  close(): Promise<void>;
  /**
   * A fault: a request it matches is forwarded to Cyrus, which carries it out, but its answer never
   * comes back (the connection is cut): for the client the outcome is unknown.
   */
  dropAnswer?: (r: ProxiedRequest) => boolean;
}

export async function startCountingProxy(upstreamSessionUrl: string): Promise<CountingProxy> {
  const upstream = new URL(upstreamSessionUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const requests: ProxiedRequest[] = [];
  let origin = '';

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const seen: ProxiedRequest = { user: basicUser(req.headers.authorization), method: req.method ?? 'GET', path: req.url ?? '/', calls: methodNames(body) };
      requests.push(seen);
      const drop = proxy.dropAnswer?.(seen) === true;
      const forward = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent }, (up) => {
        if (drop) {
          up.resume();
          up.on('end', () => req.socket.destroy());
          return;
        }
        const headers = { ...up.headers };
        if (typeof headers.location === 'string') headers.location = headers.location.replace(upstream.origin, origin);
        res.writeHead(up.statusCode ?? 502, headers);
        up.pipe(res);
      });
      forward.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const counts = () => {
    const out = new Map<string, number>();
    for (const r of requests) if (r.user) out.set(r.user, (out.get(r.user) ?? 0) + 1);
    return out;
  };
  const proxy: CountingProxy = {
    sessionUrl: `${origin}${upstream.pathname}`,
    requests,
    countFor: (user) => counts().get(user) ?? 0,
    counts,
    reset: () => {
      requests.length = 0;
    },
    close: async () => {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}

function basicUser(header: string | undefined): string | null {
  if (!header?.startsWith('Basic ')) return null;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : decoded.slice(0, colon);
}

function methodNames(body: Buffer): string[] {
  if (body.length === 0) return [];
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { methodCalls?: unknown };
    return Array.isArray(parsed.methodCalls) ? parsed.methodCalls.map((c) => String((c as unknown[])[0])) : [];
  } catch {
    return [];
  }
}
