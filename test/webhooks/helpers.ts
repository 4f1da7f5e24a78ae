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
      const body = Buffer.concat(chunks).toString('utf8');
      const r: Received = {
        id: String(req.headers['webhook-id']),
        timestamp: String(req.headers['webhook-timestamp']),
        signature: String(req.headers['webhook-signature']),
        body,
        json: JSON.parse(body) as Received['json'],
      };
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
