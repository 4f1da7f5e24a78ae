/**
 * An HTTP proxy in front of the test JMAP server that can hold back the ANSWER to a request whose body
 * names a method (EmailSubmission/set): the request reaches Cyrus and is carried out (the message is
 * submitted and the relay delivers it), but the CRM never hears back. What a crash between submitting
 * and recording the outcome looks like from the mail server's side: the test kills the CRM while it
 * waits. Every other request passes through unchanged.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldProxy {
  /** The session URL through the proxy. */
  sessionUrl: string;
  /** Hold back the answers of requests naming `method` (until release()). */
  hold(method: string): void;
  /** Answered by the mail server and held: resolves with the held request's body. */
  held(): Promise<string>;
  close(): Promise<void>;
}

export async function startHoldProxy(upstreamSessionUrl: string): Promise<HoldProxy> {
  const upstream = new URL(upstreamSessionUrl);
  let holding: string | undefined;
  const heldBodies: string[] = [];
  let wake: (() => void) | undefined;
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const forward = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('end', () => {
          const text = body.toString('utf8');
          if (holding !== undefined && text.includes(`"${holding}"`)) {
            // Carried out by the mail server; the answer never reaches the CRM.
            heldBodies.push(text);
            held.push(res);
            wake?.();
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(parts));
        });
      });
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const through = new URL(upstreamSessionUrl);
  through.hostname = '127.0.0.1';
  through.port = String(port);
  return {
    sessionUrl: through.toString(),
    hold: (method) => {
      holding = method;
    },
    held: () =>
      heldBodies.length > 0
        ? Promise.resolve(heldBodies[0])
        : new Promise<string>((resolve) => {
            wake = () => resolve(heldBodies[0]);
          }),
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
