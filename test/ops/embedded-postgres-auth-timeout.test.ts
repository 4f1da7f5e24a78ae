import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { EmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/db/embedded-postgres.js';

/**
 * Issue 52, finding 6: any local process could hold the embedded PostgreSQL's connection slots at the
 * password prompt (200 unauthenticated connections on 127.0.0.1), so every crm-admin command, the sync
 * and requests failed. The server now listens on a Unix socket in its data directory (0700, the
 * server's OS user; the socket itself 0700) and not on TCP: another local user cannot connect at all.
 * authentication_timeout is 10 s as well (on the command line, so older data directories get both).
 */
describe('embedded PostgreSQL: only its own OS user reaches it (a Unix socket in the data directory), with a short authentication_timeout', function () {
  this.timeout(180_000);
  let root: string;
  let server: EmbeddedPostgres;
  let handle: EmbeddedPostgresHandle;
  const pgData = () => path.join(root, 'data', 'postgres');

  before(async () => {
    // Not a mkdtemp (mode 700): the postgres OS user must reach the data directory.
    root = path.join('/tmp', `crm-pgauth-${process.pid}-${Date.now()}`);
    fs.mkdirSync(root, { mode: 0o755 });
    fs.chmodSync(root, 0o755);
    server = new EmbeddedPostgres(path.join(root, 'data'));
    handle = await server.start();
  });

  after(async () => {
    await handle?.stop().catch(() => undefined);
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** As the superuser: unix_socket_directories is not shown to other roles. */
  async function settings(names: string[]): Promise<Record<string, { setting: string; source: string }>> {
    const client = new pg.Client({ connectionString: handle.superuserUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string; setting: string; source: string }>('SELECT name, setting, source FROM pg_settings WHERE name = ANY($1)', [names]);
      return Object.fromEntries(rows.map((r) => [r.name, { setting: r.setting, source: r.source }]));
    } finally {
      await client.end();
    }
  }

  it('runs with authentication_timeout = 10 s and listens on its socket only, set by the service', async () => {
    const read = await settings(['authentication_timeout', 'listen_addresses', 'unix_socket_directories', 'unix_socket_permissions']);
    expect(read).to.deep.equal({
      authentication_timeout: { setting: '10', source: 'command line' },
      listen_addresses: { setting: '', source: 'command line' },
      unix_socket_directories: { setting: path.resolve(pgData()), source: 'command line' },
      unix_socket_permissions: { setting: '0700', source: 'command line' },
    });
    // The app role connects through it.
    expect(new URL(handle.url).searchParams.get('host')).to.equal(path.resolve(pgData()));
    const app = new pg.Client({ connectionString: handle.url });
    await app.connect();
    try {
      expect((await app.query<{ me: string }>('SELECT current_user AS me')).rows).to.deep.equal([{ me: 'crm_app' }]);
    } finally {
      await app.end();
    }
  });

  it('takes no TCP connection on its port', async () => {
    const refused = await new Promise<string>((resolve) => {
      const socket = net.connect(handle.port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
    expect(refused).to.equal('ECONNREFUSED');
  });

  it('keeps its socket where only the server’s OS user (and root) may reach it', () => {
    const socketFile = path.join(pgData(), `.s.PGSQL.${handle.port}`);
    const dir = fs.statSync(pgData());
    const socket = fs.statSync(socketFile);
    expect(socket.isSocket()).to.equal(true);
    expect(dir.mode & 0o777, 'the data directory').to.equal(0o700);
    expect(socket.mode & 0o777, 'the socket').to.equal(0o700);
    expect(socket.uid).to.equal(dir.uid);
  });

  it('refuses another local user before any password prompt: EACCES at the socket, nothing on TCP', function () {
    // Only root can run a process as another user here (CI runs as root).
    if (process.getuid?.() !== 0) this.skip();
    const socketFile = path.join(pgData(), `.s.PGSQL.${handle.port}`);
    expect(fs.statSync(socketFile).isSocket(), 'the server listens on its socket').to.equal(true);
    // As `nobody`: one try at the socket, one at 127.0.0.1 on the server's port (where 0.5.0 listened).
    const probe = [
      'import socket',
      'def attempt(family, address):',
      '    s = socket.socket(family)',
      '    try:',
      '        s.connect(address)',
      "        return 'connected'",
      '    except OSError as e:',
      '        return type(e).__name__',
      `print(attempt(socket.AF_UNIX, ${JSON.stringify(socketFile)}), attempt(socket.AF_INET, ('127.0.0.1', ${handle.port})))`,
    ].join('\n');
    const nobody = 65_534;
    const run = spawnSync('python3', ['-c', probe], { uid: nobody, gid: nobody, encoding: 'utf8', cwd: '/' });
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stdout.trim()).to.equal('PermissionError ConnectionRefusedError');
  });
});
