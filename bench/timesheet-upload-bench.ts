/**
 * Ten concurrent 10 MB timesheet uploads against the real server (a child process on the embedded
 * PostgreSQL), compared with a bare script writing the same bytes to disk in the same run, and the
 * growth of the server's peak RSS during the uploads (the proof that files stream, not buffer).
 *
 *   node --import=tsx/esm bench/timesheet-upload-bench.ts [rounds=3]
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pdfFixture } from '../test/timesheets/fixtures.js';

const FILE_BYTES = 10 * 1024 * 1024;
const CONCURRENCY = 10;
const CHUNK = 64 * 1024;
const MB = 1024 * 1024;

interface ServerInfo {
  url: string;
  bearer: string;
  timesheetDir: string;
}

// ---------------------------------------------------------------- server side (child process)
async function runServer(): Promise<void> {
  const { AppConfig } = await import('../src/config/config.js');
  const { createAppContext } = await import('../src/app/context.js');
  const { startServer } = await import('../src/app/server.js');
  const config = AppConfig.fromEnv();
  const ctx = await createAppContext({ config, migrate: true });
  const { user } = await ctx.services.users.create({ username: `bench${crypto.randomBytes(4).toString('hex')}`, role: 'member' }, { actor: 'bench' });
  const { accessToken } = await ctx.services.sessions.create(user, { rememberMe: false }, { actor: 'bench' });
  const server = await startServer(ctx, { api: true, sync: false, port: 0, host: '127.0.0.1' });
  if (!server.url) throw new Error('the server did not report its address');
  process.on('message', (message) => {
    if (message !== 'stop') return;
    void server.stop().finally(() => process.exit(0));
  });
  process.send!({ url: server.url, bearer: `Bearer ${accessToken}`, timesheetDir: config.timesheetDir } satisfies ServerInfo);
}

// ---------------------------------------------------------------- client side
function multipartParts(file: Buffer, year: number, month: number) {
  const boundary = `----bench${crypto.randomBytes(8).toString('hex')}`;
  const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head = Buffer.from(
    field('year', String(year)) +
      field('month', String(month)) +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="vykaz.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { head, tail, contentType: `multipart/form-data; boundary=${boundary}`, length: head.length + file.length + tail.length };
}

/** Writes the body in network-sized chunks with back-pressure, like a real client would. */
function upload(info: ServerInfo, file: Buffer): Promise<number> {
  const { head, tail, contentType, length } = multipartParts(file, 2026, 5);
  return new Promise((resolve, reject) => {
    const req = http.request(`${info.url}/api/timesheets/upload`, {
      method: 'POST',
      headers: { 'Content-Type': contentType, 'Content-Length': length, Authorization: info.bearer },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    const chunks = [head, ...chunksOf(file), tail];
    const writeNext = () => {
      while (chunks.length > 0) {
        if (!req.write(chunks.shift()!)) return void req.once('drain', writeNext);
      }
      req.end();
    };
    writeNext();
  });
}

function* chunksOf(buffer: Buffer): Generator<Buffer> {
  for (let i = 0; i < buffer.length; i += CHUNK) yield buffer.subarray(i, i + CHUNK);
}

/** The floor: the same bytes, the same concurrency and chunk size, straight to the same file system. */
async function bareWrite(dir: string, file: Buffer): Promise<void> {
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, i) => {
      const out = fs.createWriteStream(path.join(dir, `bare-${i}`), { flags: 'wx', mode: 0o600 });
      for (const chunk of chunksOf(file)) {
        if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      }
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    }),
  );
  for (let i = 0; i < CONCURRENCY; i++) fs.rmSync(path.join(dir, `bare-${i}`));
}

/** The uploaded files are not needed after a round; deleting them keeps the disk state the same each round. */
async function removeUploads(dir: string): Promise<void> {
  for (const name of await fs.promises.readdir(dir)) await fs.promises.rm(path.join(dir, name), { force: true });
}

function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${field} for ${pid}`);
  return Number(match[1]);
}

/** Resets the kernel's peak-RSS counter (VmHWM) so it covers the measured window only. */
function resetPeak(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (n: number, digits = 1) => n.toFixed(digits);

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 3);
  // Not a mkdtemp (mode 700): the embedded PostgreSQL runs as the postgres OS user and must reach it.
  const root = path.join('/tmp', `crm-bench-${process.pid}-${Date.now()}`);
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  fs.chmodSync(root, 0o755);
  fs.chmodSync(dataDir, 0o755);

  const file = pdfFixture(FILE_BYTES);
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--server'], {
    execArgv: ['--import', 'tsx'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      NODE_ENV: 'production',
      CRM_DATA_DIR: dataDir,
      ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
      JWT_ACCESS_SECRET: crypto.randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: crypto.randomBytes(32).toString('hex'),
      CRM_ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
      BCRYPT_ROUNDS: '4',
      LOG_LEVEL: 'warn',
      // A load test: one user uploads far beyond a member's quota and upload rate.
      TIMESHEET_UPLOADS_PER_HOUR: '100000',
      TIMESHEET_QUOTA_FILES: '1000000',
      TIMESHEET_QUOTA_MB: '10000000',
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const info = await new Promise<ServerInfo>((resolve, reject) => {
      child.once('message', (m) => resolve(m as ServerInfo));
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const pid = child.pid!;

    // Warm-up: JIT, lazy imports, pool connections, the storage directory.
    for (let i = 0; i < 2; i++) if ((await upload(info, file)) !== 201) throw new Error('warm-up upload failed');

    const results: Array<{ server: number; bare: number; baseKb: number; peakKb: number; peakSource: string }> = [];
    for (let round = 1; round <= rounds; round++) {
      // Start each phase with no dirty pages from the one before: otherwise write-back of the previous
      // round's 100 MB lands in whichever phase runs next and the figures are mostly noise.
      execFileSync('sync');
      const baseKb = procStatusKb(pid, 'VmRSS');
      const hwmReset = resetPeak(pid);
      let sampledPeakKb = baseKb;
      const sampler = setInterval(() => (sampledPeakKb = Math.max(sampledPeakKb, procStatusKb(pid, 'VmRSS'))), 5);
      let statuses: number[] = [];
      const server = await timed(async () => {
        statuses = await Promise.all(Array.from({ length: CONCURRENCY }, () => upload(info, file)));
      });
      clearInterval(sampler);
      if (statuses.some((s) => s !== 201)) throw new Error(`uploads failed: ${statuses.join(',')}`);
      const peakKb = hwmReset ? Math.max(procStatusKb(pid, 'VmHWM'), sampledPeakKb) : sampledPeakKb;
      await removeUploads(info.timesheetDir);
      execFileSync('sync');
      const bare = await timed(() => bareWrite(info.timesheetDir, file));
      results.push({ server, bare, baseKb, peakKb, peakSource: hwmReset ? 'VmHWM' : 'sampled VmRSS' });
      const totalMb = (CONCURRENCY * FILE_BYTES) / MB;
      console.log(
        `round ${round}: server ${fmt(totalMb / server)} MB/s (${fmt(server, 2)} s), bare disk ${fmt(totalMb / bare)} MB/s (${fmt(bare, 2)} s), ` +
          `server RSS ${fmt(baseKb / 1024)} MB -> peak ${fmt(peakKb / 1024)} MB (+${fmt((peakKb - baseKb) / 1024)} MB, ${results.at(-1)!.peakSource})`,
      );
    }

    const totalMb = (CONCURRENCY * FILE_BYTES) / MB;
    const serverMbs = median(results.map((r) => totalMb / r.server));
    const bareMbs = median(results.map((r) => totalMb / r.bare));
    const growthMb = Math.max(...results.map((r) => (r.peakKb - r.baseKb) / 1024));
    console.log('');
    console.log(`${CONCURRENCY} concurrent uploads of ${FILE_BYTES} bytes each, ${rounds} rounds (medians):`);
    console.log(`  through the server: ${fmt(serverMbs)} MB/s`);
    console.log(`  bare disk writes:   ${fmt(bareMbs)} MB/s  (server reaches ${fmt((100 * serverMbs) / bareMbs, 0)}% of it)`);
    console.log(`  server peak RSS growth (worst round): ${fmt(growthMb)} MB  (target < 50 MB: ${growthMb < 50 ? 'met' : 'NOT met'})`);
  } finally {
    child.send('stop');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--server') {
  await runServer();
} else {
  await main();
}
