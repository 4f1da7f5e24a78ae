import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a loopback receiver got: headers and the raw body, as the signature covers it. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  json: { type: string; timestamp: string; data: { emailAccountId: string; ids?: string[] } };
}

/** One request as a receiver sees it: the Standard Webhooks headers and the body the signature covers. */
function receivedFrom(req: http.IncomingMessage, chunks: Buffer[]): Received {
  const body = Buffer.concat(chunks).toString('utf8');
  return {
    id: String(req.headers['webhook-id']),
    timestamp: String(req.headers['webhook-timestamp']),
    signature: String(req.headers['webhook-signature']),
    body,
    json: JSON.parse(body) as Received['json'],
  };
}

/**
 * A real receiver on 127.0.0.1: answers each request with what `answer` says (200 by default) and
 * keeps every request it got.
 */
export async function startReceiver(answer: (r: Received, seen: Received[]) => number = () => 200): Promise<{ url: string; got: Received[]; close: () => Promise<void> }> {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = receivedFrom(req, chunks);
      const status = answer(r, got);
      got.push(r);
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, got, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The Standard Webhooks verification, written out here (not our code): HMAC-SHA256 keyed with the decoded secret. */
export function verifies(secret: string, r: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = crypto.createHmac('sha256', key).update(`${r.id}.${r.timestamp}.${r.body}`).digest('base64');
  return r.signature.split(' ').some((s) => {
    const [version, sig] = s.split(',');
    return version === 'v1' && sig !== undefined && sig.length === expected.length && crypto.timingSafeEqual(Buffer.from(sig), Buffer.from(expected));
  });
}

/**
 * A receiver that holds every request open until `release()` (and answers 200 at once after it):
 * how many calls are open at a time is what `held()` counts.
 */
export async function startGatedReceiver(): Promise<{ url: string; got: Received[]; held(): number; release(): void; close(): Promise<void> }> {
  const got: Received[] = [];
  const waiting: Array<() => void> = [];
  let open = true;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push(receivedFrom(req, chunks));
      const answer = () => void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      if (open) waiting.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    held: () => waiting.length,
    release() {
      open = false;
      for (const answer of waiting.splice(0)) answer();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
