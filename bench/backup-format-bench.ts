/**
 * Our archive format (src/backup/, `crm-admin db backup` / `db restore`) against PostgreSQL's own
 * tools (`pg_dump -Fc` / `pg_restore`) on the same database: wall time and size
 * (docs/adr/0132-backup-format.md). Seeds a mailbox (BENCH_EMAILS emails, 2,000 contacts) into a
 * throwaway PostgreSQL 15, since Debian's pg_dump 15 refuses a later server; no timesheet files by
 * default (pg_dump has none). Each restore goes into an empty database of a second server. Every
 * command runs as a child process, timed from spawn to exit; BENCH_ROUNDS rounds (default 3), the
 * two tools in turn and in alternating order, and the median of each step is printed (a loaded
 * machine moves single runs by a factor of two).
 *
 *   npm run build && node --import=tsx/esm bench/backup-format-bench.ts
 *   BENCH_EMAILS=5000 BENCH_ROUNDS=1 node --import=tsx/esm bench/backup-format-bench.ts     # a quick look
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QueryTypes, Sequelize } from 'sequelize';
import { createAppContext } from '../src/app/context.js';
import { AppConfig } from '../src/config/config.js';
import { createLogger } from '../src/logging/logger.js';
import { findPgDump, pgDumpMajor, startPostgres15 } from '../test/support/postgres15.js';
import { seedMailbox } from './contacts-seed.js';

const EMAILS = Number(process.env.BENCH_EMAILS ?? 50_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const crmAdmin = fileURLToPath(new URL('../bin/crm-admin', import.meta.url));
const secrets = {
  JWT_ACCESS_SECRET: '1455Ctk8e5fyWaFH6d4d8TLzvd9Des6al/DOMjEWOB6IbwlPqe5drebCX8bFA3Kx',
  JWT_REFRESH_SECRET: 'tvYe7WS41tBRHYksKcTAiytXWF7Q+uQBMy5gPqx20IETAZ4+MQ46jMSWxW8Z4uB3',
  CRM_ENCRYPTION_KEY: '4f5edb03a4e3e27b1110244b3c52c42c759985bda1661a5ac46271f550165462',
};

/** Runs a command to its end; its wall time in seconds, or throws with its stderr. */
function timed(command: string, args: string[], env: Record<string, string> = {}): number {
  const started = process.hrtime.bigint();
  const res = spawnSync(command, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', CLI_LOG_LEVEL: 'error', ...secrets, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (res.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${res.status}):\n${res.stderr}`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

const mib = (file: string) => fs.statSync(file).size / 1024 / 1024;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const withDatabase = (url: string, name: string) => url.replace(/\/[^/?]+(\?|$)/, `/${name}$1`);

async function rowCount(url: string): Promise<number> {
  const db = new Sequelize(url, { logging: false });
  try {
    await db.query('ANALYZE');
    const [row] = await db.query<{ rows: string }>("SELECT sum(n_live_tup)::text AS rows FROM pg_stat_user_tables WHERE relname <> 'schema_migrations'", {
      type: QueryTypes.SELECT,
    });
    return Number(row?.rows ?? 0);
  } finally {
    await db.close();
  }
}

async function main(): Promise<void> {
  const pgDump = findPgDump();
  if (!pgDump || pgDumpMajor(pgDump) !== '15') throw new Error('needs Debian pg_dump 15 and pg_restore (postgresql-client-15)');
  const tmp = path.join('/tmp', `crm-bench-backup-format-${process.pid}`);
  fs.mkdirSync(tmp, { recursive: true, mode: 0o755 });
  fs.chmodSync(tmp, 0o755);
  const sourceDir = path.join(tmp, 'source');
  const targetDir = path.join(tmp, 'target');
  const servers = [];
  try {
    const source = await startPostgres15(sourceDir);
    servers.push(source);
    // Migrated as the schema's owner (ADR 0171).
    const config = AppConfig.fromEnv({
      NODE_ENV: 'production',
      DATABASE_URL: source.url,
      DATABASE_OWNER_URL: source.ownerUrl,
      CRM_DATA_DIR: sourceDir,
      LOG_LEVEL: 'error',
      ...secrets,
    });
    const ctx = await createAppContext({ config, logger: createLogger('error', { silent: true }), migrate: true });
    const seeded = await seedMailbox(ctx, 'format', { contacts: 2000, emails: EMAILS });
    const [size] = await ctx.db.sequelize.query<{ db: string }>('SELECT pg_size_pretty(pg_database_size(current_database())) AS db', { type: QueryTypes.SELECT });
    await ctx.close({ stopEmbedded: false });
    const rows = await rowCount(source.url);
    console.log(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${os.cpus().length} CPUs; PostgreSQL 15, pg_dump ${pgDumpMajor(pgDump)}`,
    );
    console.log(`database: ${seeded.emails} emails, ${seeded.contacts} contacts, ${seeded.links} links, ~${rows} rows, ${size?.db} on disk`);

    const target = await startPostgres15(targetDir);
    servers.push(target);
    const admin = new Sequelize(target.superuserUrl, { logging: false });
    type Steps = Record<'backup' | 'verify' | 'restore', number[]>;
    const ours: Steps = { backup: [], verify: [], restore: [] };
    const theirs: Steps = { backup: [], verify: [], restore: [] };
    const archive = path.join(tmp, 'crm.tar.gz');
    const dump = path.join(tmp, 'crm.dump');
    const restored: string[] = [];
    const runOurs = async (round: number) => {
      // Our restore runs as the app role, as the service does: an empty database it owns.
      await admin.query(`CREATE DATABASE crm_ours_${round} OWNER crm_app`);
      const targetUrl = withDatabase(target.url, `crm_ours_${round}`);
      const env = { DATABASE_URL: source.url, CRM_DATA_DIR: sourceDir };
      ours.backup.push(timed(crmAdmin, ['db', 'backup', archive, '--json'], env));
      ours.verify.push(timed(crmAdmin, ['db', 'backup', '--verify', archive, '--json'], env));
      ours.restore.push(timed(crmAdmin, ['db', 'restore', archive, '--json'], { DATABASE_URL: targetUrl, CRM_DATA_DIR: path.join(targetDir, `data-${round}`) }));
      restored.push(`crm-admin ${await rowCount(targetUrl)}`);
    };
    const runTheirs = async (round: number) => {
      await admin.query(`CREATE DATABASE crm_pg_${round}`);
      const targetUrl = withDatabase(target.superuserUrl, `crm_pg_${round}`);
      theirs.backup.push(timed(pgDump, ['-Fc', '-f', dump, source.superuserUrl]));
      theirs.verify.push(timed('pg_restore', ['--list', dump]));
      theirs.restore.push(timed('pg_restore', ['--no-owner', '--exit-on-error', '-d', targetUrl, dump]));
      restored.push(`pg_restore ${await rowCount(targetUrl)}`);
    };
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        await runOurs(round);
        await runTheirs(round);
      } else {
        await runTheirs(round);
        await runOurs(round);
      }
    }
    await admin.close();

    console.log(`size     crm-admin ${mib(archive).toFixed(1)} MiB (tar.gz)   pg_dump -Fc ${mib(dump).toFixed(1)} MiB   ratio ${(mib(archive) / mib(dump)).toFixed(2)}`);
    console.log(`median of ${ROUNDS} rounds (each run: ${ROUNDS > 1 ? 'listed after the median' : 'the one'})`);
    for (const step of ['backup', 'verify', 'restore'] as const) {
      const note = step === 'verify' ? '  (pg_restore --list only reads the TOC: it checks nothing)' : '';
      const list = (values: number[]) => values.map((v) => v.toFixed(1)).join('/');
      console.log(
        `${step.padEnd(8)} crm-admin ${median(ours[step]).toFixed(1).padStart(6)} s [${list(ours[step])}]   pg ${median(theirs[step]).toFixed(1).padStart(6)} s [${list(theirs[step])}]` +
          `   ratio ${(median(ours[step]) / median(theirs[step])).toFixed(2)}${note}`,
      );
    }
    console.log(`restored rows: ${restored.join(', ')} (source ~${rows})`);
    console.log(
      `load average after: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    for (const server of servers) await server.stop().catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
