/**
 * A TCP proxy on 127.0.0.1 in front of a server (the test PostgreSQL) that can be frozen: it stops
 * forwarding bytes in both directions but keeps every socket open and accepts new connections without
 * answering them, as a database host that vanished behind a stalled network, a hung VM or a
 * black-holed route looks to a client (no reset, no FIN, no answer). Thawed, it forwards again
 * whatever was held back and whatever comes next.
 */
import net from 'node:net';

export interface FreezableProxy {
  port: number;
  /** `upstream` with the proxy's host and port. */
  url: string;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startFreezableProxy(upstream: string): Promise<FreezableProxy> {
  const target = new URL(upstream);
  const host = target.hostname;
  const port = Number(target.port || 5432);
  let frozen = false;
  const pairs = new Set<{ client: net.Socket; server: net.Socket }>();

  const pause = (pair: { client: net.Socket; server: net.Socket }) => {
    pair.client.pause();
    pair.server.pause();
  };
  const resume = (pair: { client: net.Socket; server: net.Socket }) => {
    pair.client.resume();
    pair.server.resume();
  };

  const proxy = net.createServer((client) => {
    const server = net.connect({ host, port });
    const pair = { client, server };
    pairs.add(pair);
    // Bytes flow only through 'data' while the sockets are not paused: paused, they wait in the kernel.
    client.on('data', (chunk) => server.write(chunk));
    server.on('data', (chunk) => client.write(chunk));
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    client.on('close', end);
    server.on('close', end);
    client.on('error', end);
    server.on('error', end);
    if (frozen) pause(pair);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const own = (proxy.address() as net.AddressInfo).port;
  const url = new URL(upstream);
  url.hostname = '127.0.0.1';
  url.port = String(own);
  return {
    port: own,
    url: url.toString(),
    freeze: () => {
      frozen = true;
      for (const pair of pairs) pause(pair);
    },
    thaw: () => {
      frozen = false;
      for (const pair of pairs) resume(pair);
    },
    close: async () => {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.server.destroy();
      }
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
