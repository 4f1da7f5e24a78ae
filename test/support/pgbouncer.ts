/**
 * A PgBouncer of the test's own (Debian's package) in front of the suite's PostgreSQL: a free port on
 * 127.0.0.1, a generated ini in a temporary directory, stopped and removed by close(). Its
 * configuration is PgBouncer's default but for what a test must choose (pool mode, where the server
 * is, who may log in): in particular no `ignore_startup_parameters`, so a client that sends a startup
 * parameter PgBouncer does not know is refused as it would be in production.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { childEnv } from './cli.js';
import { until } from './poll.js';

export const PGBOUNCER = '/usr/sbin/pgbouncer';

export function pgbouncerInstalled(): boolean {
  return fs.existsSync(PGBOUNCER);
}

export interface PgBouncer {
  /** `upstream` with PgBouncer's host and port in place of PostgreSQL's (same user, password, database). */
  url: string;
  output(): string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const quoted = (value: string) => `"${value.replace(/"/g, '""')}"`;

/** `settings`: more `key = value` lines for [pgbouncer] (a benchmark's pool sizes); tests keep the defaults. */
export async function startPgBouncer(upstream: string, poolMode: 'session' | 'transaction', settings: string[] = []): Promise<PgBouncer> {
  const target = new URL(upstream);
  const user = decodeURIComponent(target.username);
  const password = decodeURIComponent(target.password);
  // Not a mkdtemp (mode 700): PgBouncer refuses to run as root, and the user it switches to must read it.
  const dir = path.join('/tmp', `crm-pgbouncer-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);
  fs.mkdirSync(dir, { mode: 0o755 });
  fs.chmodSync(dir, 0o755);
  const port = await freePort();
  const userlist = path.join(dir, 'userlist.txt');
  fs.writeFileSync(userlist, `${quoted(user)} ${quoted(password)}\n`, { mode: 0o644 });
  const ini = path.join(dir, 'pgbouncer.ini');
  fs.writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = scram-sha-256',
      `auth_file = ${userlist}`,
      `pool_mode = ${poolMode}`,
      ...settings,
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  const child = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'postgres'] : []), ini], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until(
      () => {
        if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}:\n${out}`);
        return /listening on 127\.0\.0\.1:\d+/.test(out);
      },
      { what: `pgbouncer listening on 127.0.0.1:${port}`, timeoutMs: 15_000 },
    );
  } catch (err) {
    child.kill('SIGKILL');
    await close();
    throw err;
  }
  const url = new URL(upstream);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return { url: url.toString(), output: () => out, close };
}
