import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * Mail servers that misbehave, on 127.0.0.1, for a sync to run against. Modes that still talk JMAP
 * pass everything through to the real Cyrus (so credentials and data are real) and break only
 * what the mode names.
 */
export type JmapFault =
  /** Accepts the connection and never answers. */
  | 'silent'
  /** 200 with an HTML page where the session should be. */
  | 'html'
  /** 200 JSON that is not a JMAP session. */
  | 'wrong-session'
  /** The real session, then API answers of the wrong shape. */
  | 'wrong-api'
  /** The real server until `cutAfter` API calls, then connections reset in the middle of the sync. */
  | 'cut-mid-sync'
  /** The real server, with a NUL character put into every subject, preview, name and text body. */
  | 'nul-in-mail'
  /** 403 to everything: the server refuses the CRM itself (its address blocked), whoever signs in. */
  | 'refuse-403'
  /** 429 with Retry-After to everything: the server rate-limits the CRM. */
  | 'throttle-429';

export interface FaultServer {
  /** JMAP_SESSION_URL for a context. */
  sessionUrl: string;
  apiCalls: () => number;
  /** Values the 'nul-in-mail' mode changed. */
  injected: () => number;
  close(): Promise<void>;
}

export async function startFaultServer(fault: JmapFault, upstreamSessionUrl: string, options: { cutAfter?: number } = {}): Promise<FaultServer> {
  const upstream = new URL(upstreamSessionUrl);
  let apiCalls = 0;
  let injected = 0;
  const sockets = new Set<Socket>();

  const server = http.createServer((req, res) => {
    const isApi = req.method === 'POST';
    if (isApi) apiCalls++;
    switch (fault) {
      case 'silent':
        return; // never answered
      case 'refuse-403':
        res.writeHead(403, { 'Content-Type': 'text/plain' }).end('Forbidden');
        return;
      case 'throttle-429':
        res.writeHead(429, { 'Content-Type': 'text/plain', 'Retry-After': '600' }).end('Too Many Requests');
        return;
      case 'html':
        res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html><body>Maintenance</body></html>');
        return;
      case 'wrong-session':
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ hello: 'world', accounts: 'none', apiUrl: 42 }));
        return;
      case 'wrong-api':
        if (isApi) {
          res
            .writeHead(200, { 'Content-Type': 'application/json' })
            .end(JSON.stringify({ methodResponses: [['Email/changes', { created: 'x', updated: null }, 'c0']], sessionState: 1 }));
          return;
        }
        forward(req, res, upstream);
        return;
      case 'nul-in-mail':
        if (isApi) {
          forward(req, res, upstream, (body) =>
            body.replace(/"(subject|preview|name|value)":"/g, (_m, key: string) => {
              injected++;
              return `"${key}":"\\u0000`;
            }),
          );
          return;
        }
        forward(req, res, upstream);
        return;
      case 'cut-mid-sync':
        if (isApi && apiCalls > (options.cutAfter ?? 1)) {
          req.socket.destroy();
          return;
        }
        forward(req, res, upstream);
        return;
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    // The session resource itself (Cyrus redirects /.well-known/jmap there with an absolute URL,
    // which would lead the client past this server); its relative apiUrl then resolves to us.
    sessionUrl: `http://127.0.0.1:${port}/jmap`,
    apiCalls: () => apiCalls,
    injected: () => injected,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function forward(req: http.IncomingMessage, res: http.ServerResponse, upstream: URL, rewrite?: (body: string) => string): void {
  // Uncompressed, so a rewrite can read the body.
  const headers = { ...req.headers, host: upstream.host, 'accept-encoding': 'identity' };
  const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
    if (!rewrite) {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      return;
    }
    const chunks: Buffer[] = [];
    answer.on('data', (c: Buffer) => chunks.push(c));
    answer.on('end', () => {
      const body = Buffer.from(rewrite(Buffer.concat(chunks).toString('utf8')), 'utf8');
      const { 'content-length': _length, 'transfer-encoding': _te, ...rest } = answer.headers;
      res.writeHead(answer.statusCode ?? 502, { ...rest, 'content-length': String(body.length) });
      res.end(body);
    });
  });
  out.on('error', () => res.destroy());
  req.pipe(out);
}
