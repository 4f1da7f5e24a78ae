/**
 * Backup and restore at scale: seeds 100,000 emails (2,000 contacts, one mailbox) and 200 timesheet
 * files (256 KiB each, incompressible), then times `crm-admin db backup`, `db backup --verify` and
 * `db restore` (into a second, empty embedded PostgreSQL) as child processes, and reads each child's
 * peak RSS from /usr/bin/time -v: with streaming it must stay flat however large the data is.
 *
 *   npm run build && node --import=tsx/esm bench/backup-bench.ts       # embedded PostgreSQL servers in a temp dir, removed afterwards
 *   BENCH_EMAILS=20000 BENCH_FILES=20 node --import=tsx/esm bench/backup-bench.ts   # a quick look
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QueryTypes } from 'sequelize';
import { createAppContext } from '../src/app/context.js';
import { AppConfig } from '../src/config/config.js';
import { EmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { createLogger } from '../src/logging/logger.js';
import { seedMailbox } from './contacts-seed.js';

const EMAILS = Number(process.env.BENCH_EMAILS ?? 100_000);
const FILES = Number(process.env.BENCH_FILES ?? 200);
const FILE_BYTES = 256 * 1024;
const crmAdmin = fileURLToPath(new URL('../bin/crm-admin', import.meta.url));
const secrets = {
  JWT_ACCESS_SECRET: '1455Ctk8e5fyWaFH6d4d8TLzvd9Des6al/DOMjEWOB6IbwlPqe5drebCX8bFA3Kx',
  JWT_REFRESH_SECRET: 'tvYe7WS41tBRHYksKcTAiytXWF7Q+uQBMy5gPqx20IETAZ4+MQ46jMSWxW8Z4uB3',
  CRM_ENCRYPTION_KEY: '4f5edb03a4e3e27b1110244b3c52c42c759985bda1661a5ac46271f550165462',
};

interface Run {
  seconds: number;
  maxRssMiB: number;
  stdout: string;
}

/** Runs crm-admin under /usr/bin/time -v: wall time and the child's peak resident set size. */
function timed(args: string[], env: Record<string, string>): Run {
  const started = process.hrtime.bigint();
  const res = spawnSync('/usr/bin/time', ['-v', crmAdmin, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', CLI_LOG_LEVEL: 'error', ...secrets, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (res.status !== 0) throw new Error(`crm-admin ${args.join(' ')} failed (${res.status}):\n${res.stderr}`);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(res.stderr);
  return { seconds, maxRssMiB: rss ? Number(rss[1]) / 1024 : NaN, stdout: res.stdout };
}

const mib = (bytes: number) => bytes / 1024 / 1024;

async function main(): Promise<void> {
  const tmp = path.join('/tmp', `crm-bench-backup-${process.pid}`);
  fs.mkdirSync(tmp, { recursive: true, mode: 0o755 });
  fs.chmodSync(tmp, 0o755);
  const sourceDir = path.join(tmp, 'source');
  const targetDir = path.join(tmp, 'target');
  const source = new EmbeddedPostgres(sourceDir);
  const target = new EmbeddedPostgres(targetDir);
  try {
    const { url: sourceUrl, ownerUrl: sourceOwnerUrl } = await source.start();
    // Migrations and restores run as the schema's owner (ADR 0171).
    const config = AppConfig.fromEnv({
      NODE_ENV: 'production',
      DATABASE_URL: sourceUrl,
      DATABASE_OWNER_URL: sourceOwnerUrl,
      CRM_DATA_DIR: sourceDir,
      LOG_LEVEL: 'error',
      ...secrets,
    });
    const ctx = await createAppContext({ config, logger: createLogger('error', { silent: true }), migrate: true });
    const seedStarted = Date.now();
    const mailbox = await seedMailbox(ctx, 'backup', { contacts: 2000, emails: EMAILS });
    fs.mkdirSync(config.timesheetDir, { recursive: true, mode: 0o700 });
    for (let i = 0; i < FILES; i++) {
      const key = crypto.randomUUID();
      fs.writeFileSync(path.join(config.timesheetDir, key), crypto.randomBytes(FILE_BYTES), { mode: 0o600 });
      await ctx.db.sequelize.query(
        `INSERT INTO timesheets (user_id, file_name, file_path, file_type, file_size, year, month) VALUES ($userId, $name, $key, 'pdf', $size, $year, $month)`,
        { bind: { userId: mailbox.user.id, name: `vykaz-${i}.pdf`, key, size: FILE_BYTES, year: 2000 + Math.floor(i / 12), month: (i % 12) + 1 } },
      );
    }
    const [sizes] = await ctx.db.sequelize.query<{ db: string; rows: string }>(
      `SELECT pg_size_pretty(pg_database_size(current_database())) AS db,
              (SELECT sum(n_live_tup) FROM pg_stat_user_tables)::text AS rows`,
      { type: QueryTypes.SELECT },
    );
    await ctx.close({ stopEmbedded: false });
    console.log(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${os.cpus().length} CPUs`,
    );
    console.log(
      `seeded ${mailbox.emails} emails, ${mailbox.contacts} contacts, ${mailbox.links} links, ${FILES} files of ${FILE_BYTES / 1024} KiB ` +
        `in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s; database ${sizes?.db}, ~${sizes?.rows} rows`,
    );

    const archive = path.join(tmp, 'crm.tar.gz');
    const sourceEnv = { DATABASE_URL: sourceUrl, CRM_DATA_DIR: sourceDir };
    const backup = timed(['db', 'backup', archive, '--json'], sourceEnv);
    const summary = JSON.parse(backup.stdout) as { rows: number; files: number; fileBytes: number; bytes: number };
    const verify = timed(['db', 'backup', '--verify', archive, '--json'], sourceEnv);
    const report = JSON.parse(verify.stdout) as { tables: Array<{ bytes: number }> };
    const tableBytes = report.tables.reduce((n, t) => n + t.bytes, 0);
    const payload = tableBytes + summary.fileBytes;

    const { url: targetUrl, ownerUrl: targetOwnerUrl } = await target.start();
    const restore = timed(['db', 'restore', archive, '--json'], { DATABASE_URL: targetUrl, DATABASE_OWNER_URL: targetOwnerUrl, CRM_DATA_DIR: targetDir });
    const restored = JSON.parse(restore.stdout) as { rows: number; files: number };
    if (restored.rows !== summary.rows || restored.files !== summary.files) throw new Error('restore did not bring back every row and file');

    console.log(
      `archive ${mib(summary.bytes).toFixed(1)} MiB (gzip) of ${mib(tableBytes).toFixed(1)} MiB table data + ${mib(summary.fileBytes).toFixed(1)} MiB files; ${summary.rows} rows`,
    );
    for (const [name, run] of [
      ['backup', backup],
      ['verify', verify],
      ['restore', restore],
    ] as const) {
      console.log(
        `${name.padEnd(8)} ${run.seconds.toFixed(1).padStart(6)} s  ${(mib(payload) / run.seconds).toFixed(1).padStart(6)} MiB/s  ` +
          `${Math.round(summary.rows / run.seconds)
            .toString()
            .padStart(7)} rows/s  peak RSS ${run.maxRssMiB.toFixed(0)} MiB`,
      );
    }
  } finally {
    await source.stop().catch(() => undefined);
    await target.stop().catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
