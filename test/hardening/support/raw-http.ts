import net from 'node:net';
import type { RawResponse } from './http-target.js';

/**
 * One request written byte for byte on its own connection: the only way to send what an HTTP
 * client library refuses to (oversized or missing headers, broken framing, odd request lines).
 * A server still waiting for the rest of a body after `idleMs` is told the client is done (FIN),
 * as a real client that stopped sending would; it must then answer and close, not hang.
 */
export function sendRawBytes(port: number, bytes: Buffer | string, timeoutMs = 15_000, idleMs = 4_000): Promise<RawResponse & { raw: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms to ${JSON.stringify(bytes.toString().slice(0, 200))}`));
    }, timeoutMs);
    const idle = setTimeout(() => socket.end(), idleMs);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // A 100 Continue only invites the body: the client still stops sending (FIN) after idleMs.
      if (!/^(?:HTTP\/1\.[01] 1\d\d [^\r]*\r\n\r\n)*$/.test(Buffer.concat(chunks).toString('latin1'))) clearTimeout(idle);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      clearTimeout(idle);
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (err) {
        reject(err);
      }
    });
    socket.write(bytes);
  });
}

/** Status, headers and (de-chunked) body of the first response on the connection; status 0 when nothing came. */
export function parseResponse(data: Buffer): RawResponse & { raw: string } {
  let raw = data.toString('latin1');
  // Interim answers (100 Continue) come before the real one.
  while (/^HTTP\/1\.[01] 1\d\d /.test(raw)) {
    raw = raw.slice(raw.indexOf('\r\n\r\n') + 4);
    data = data.subarray(data.length - Buffer.byteLength(raw, 'latin1'));
  }
  if (raw.length === 0) return { status: 0, headers: {}, text: '', json: undefined, raw };
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`incomplete response head: ${JSON.stringify(raw.slice(0, 300))}`);
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let body = data.subarray(Buffer.byteLength(raw.slice(0, end + 4), 'latin1'));
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  const text = body.toString('utf8');
  let json: unknown;
  if (/json/.test(headers['content-type'] ?? '')) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status, headers, text, json, raw };
}

function dechunk(body: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) break;
    out.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(out);
}
