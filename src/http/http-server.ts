import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import type { ErrorCode } from '../errors/error-codes.js';

/**
 * Node's HTTP layer answers some requests itself before express runs: headers over its 16 kB limit
 * (431), a request line or framing it cannot parse (400), a missing Host (400), an unknown Expect
 * (417), a header timeout (408). Its answers have an empty body. Here each gets the contract's envelope,
 * so a client sees the same error shape whatever the layer that refused it.
 */
export function createHttpServer(app: Express): http.Server {
  // Node's own Host check answers an empty 400; this one answers the envelope. requireHostHeader is
  // Node's since 20.0, but @types/node 22.13 (the engines floor's typings) does not declare it yet.
  const options: http.ServerOptions & { requireHostHeader?: boolean } = { requireHostHeader: false };
  const server = http.createServer(options, (req, res) => {
    if (req.httpVersion === '1.1' && !req.headers.host) {
      sendEnvelope(res, 400, 'Chýba hlavička Host', 'bad_request');
      return;
    }
    app(req, res);
  });
  server.on('checkExpectation', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    sendEnvelope(res, 417, 'Nepodporovaná hlavička Expect', 'expectation_failed');
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // As Node's default: answer only while no byte of a response is on this connection yet, then close.
    const inFlight = (socket as Duplex & { _httpMessage?: { _headerSent?: boolean } })._httpMessage;
    if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?._headerSent) {
      const [status, message, code] = clientErrorAnswer(err.code);
      socket.write(rawEnvelope(status, message, code));
    }
    socket.destroy(err);
  });
  // CONNECT (proxy tunnelling) is not something this server does.
  server.on('connect', (_req: http.IncomingMessage, socket: Duplex) => {
    socket.end(rawEnvelope(400, 'Zlá požiadavka', 'bad_request'));
  });
  return server;
}

function clientErrorAnswer(code: string | undefined): [number, string, ErrorCode] {
  if (code === 'HPE_HEADER_OVERFLOW') return [431, 'Hlavičky požiadavky sú príliš veľké', 'request_headers_too_large'];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'Požiadavka neprišla včas', 'request_timeout'];
  return [400, 'Zlá požiadavka', 'bad_request'];
}

function envelopeBody(status: number, message: string, code: ErrorCode): string {
  return JSON.stringify({ success: false, error: { message, statusCode: status, code } });
}

function sendEnvelope(res: http.ServerResponse, status: number, message: string, code: ErrorCode): void {
  const body = envelopeBody(status, message, code);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body);
}

/** For the socket-level events there is no response object: the whole answer is written by hand. */
function rawEnvelope(status: number, message: string, code: ErrorCode): string {
  const body = envelopeBody(status, message, code);
  return (
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}
