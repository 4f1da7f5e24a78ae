import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WaitingListener {
  /** The port it holds (PORT=0 picks one; the real server takes the same one over). */
  port: number;
  close(): Promise<void>;
}

/**
 * The HTTP port while `serve` waits for its database: liveness answers (the process is fine, systemd
 * and load balancers should not kill it), readiness and everything else answer 503 in the error
 * envelope. It is closed the moment the database answers, and the full app listens on the same port.
 */
export async function openWaitingListener(host: string, port: number): Promise<WaitingListener> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && (path === '/api/health' || path === '/api/health/')) {
      send(res, 200, { success: true, data: { status: 'ok', uptimeSeconds: Math.round(process.uptime()) }, message: 'Služba beží' });
      return;
    }
    send(res, 503, { success: false, error: { message: 'Databáza nie je dostupná', statusCode: 503, code: 'service_unavailable' } }, { 'Retry-After': '5' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    Connection: 'close',
    ...headers,
  });
  res.end(text);
}
