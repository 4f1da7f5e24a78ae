/**
 * An HTTP proxy on 127.0.0.1 in front of the test Cyrus that can hold JMAP API calls: a call whose
 * body matches is kept (not forwarded) until release(), as a mail server that is slow to answer
 * looks to the CRM. Every URL of the upstream's origin in its answers (the session's apiUrl, a
 * redirect's Location) is rewritten to the proxy's, so the client keeps talking through it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldingJmapProxy {
  /** The session URL through the proxy (for JMAP_SESSION_URL). */
  sessionUrl: string;
  /** From now on, calls whose body matches are held. */
  hold(match: (body: string) => boolean): void;
  /** How many calls are held now. */
  held(): number;
  /** Forwards every held call and holds no more. */
  release(): void;
  close(): Promise<void>;
}

export async function startHoldingJmapProxy(upstreamSessionUrl: string): Promise<HoldingJmapProxy> {
  const upstream = new URL(upstreamSessionUrl);
  let match: ((body: string) => boolean) | undefined;
  const waiting: Array<() => void> = [];
  let origin = '';

  const forward = (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => {
    const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8').split(upstream.origin).join(origin);
        const headers = { ...answer.headers };
        if (typeof headers.location === 'string') headers.location = headers.location.split(upstream.origin).join(origin);
        delete headers['transfer-encoding'];
        headers['content-length'] = String(Buffer.byteLength(text));
        res.writeHead(answer.statusCode ?? 502, headers);
        res.end(text);
      });
    });
    out.on('error', () => res.destroy());
    out.end(body);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (match?.(body.toString('utf8'))) waiting.push(() => forward(req, body, res));
      else forward(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    sessionUrl: `${origin}${upstream.pathname}`,
    hold: (m) => (match = m),
    held: () => waiting.length,
    release: () => {
      match = undefined;
      for (const go of waiting.splice(0)) go();
    },
    close: async () => {
      match = undefined;
      for (const go of waiting.splice(0)) go();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
