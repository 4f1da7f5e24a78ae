/**
 * Our archive format (src/backup/, `crm-admin db backup` / `db restore`) against PostgreSQL's own
 * tools (`pg_dump -Fc` / `pg_restore`) on the same database: wall time and size
 * (docs/adr/0129-own-backup-format.md). Seeds a mailbox (BENCH_EMAILS emails, 2,000 contacts) into a
 * throwaway PostgreSQL 15, since Debian's pg_dump 15 refuses a later server; no timesheet files by
 * default (pg_dump has none: BENCH_FILES adds them to our side only). Each restore goes into an empty
 * database of a second server. Every command runs as a child process, timed from spawn to exit.
 *
 *   npm run build && npx tsx bench/backup-format-bench.ts
 *   BENCH_EMAILS=5000 npx tsx bench/backup-format-bench.ts     # a quick look
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
    const config = AppConfig.fromEnv({ NODE_ENV: 'production', DATABASE_URL: source.url, CRM_DATA_DIR: sourceDir, LOG_LEVEL: 'error', ...secrets });
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
    const archive = path.join(tmp, 'crm.tar.gz');
    const dump = path.join(tmp, 'crm.dump');
    const ours = {
      backup: timed(crmAdmin, ['db', 'backup', archive, '--json'], { DATABASE_URL: source.url, CRM_DATA_DIR: sourceDir }),
      verify: timed(crmAdmin, ['db', 'backup', '--verify', archive, '--json'], { DATABASE_URL: source.url, CRM_DATA_DIR: sourceDir }),
      restore: timed(crmAdmin, ['db', 'restore', archive, '--json'], { DATABASE_URL: target.url, CRM_DATA_DIR: targetDir }),
    };
    const ourRows = await rowCount(target.url);
    const admin = new Sequelize(target.superuserUrl, { logging: false });
    await admin.query('CREATE DATABASE crm_pg_restore');
    await admin.close();
    const theirs = {
      backup: timed(pgDump, ['-Fc', '-f', dump, source.superuserUrl]),
      verify: timed('pg_restore', ['--list', dump]),
      restore: timed('pg_restore', ['--no-owner', '--exit-on-error', '-d', withDatabase(target.superuserUrl, 'crm_pg_restore'), dump]),
    };
    const theirRows = await rowCount(withDatabase(target.superuserUrl, 'crm_pg_restore'));

    console.log(`size     crm-admin ${mib(archive).toFixed(1)} MiB (tar.gz)   pg_dump -Fc ${mib(dump).toFixed(1)} MiB   ratio ${(mib(archive) / mib(dump)).toFixed(2)}`);
    for (const step of ['backup', 'verify', 'restore'] as const) {
      const label = step === 'verify' ? 'verify (pg_restore --list: reads the TOC only, checks nothing)' : step;
      console.log(
        `${step.padEnd(8)} crm-admin ${ours[step].toFixed(1).padStart(6)} s   pg ${theirs[step].toFixed(1).padStart(6)} s   ratio ${(ours[step] / theirs[step]).toFixed(2)}   ${label === step ? '' : label}`,
      );
    }
    console.log(`restored rows: crm-admin ${ourRows}, pg_restore ${theirRows} (source ~${rows})`);
  } finally {
    for (const server of servers) await server.stop().catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
