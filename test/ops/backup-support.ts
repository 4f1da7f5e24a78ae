import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { expect } from 'chai';
import pg from 'pg';
import tar from 'tar-stream';
import { cliEnv } from '../admin/cli-helpers.js';
import { crmAdmin, repoRoot } from '../support/cli.js';
import { scratchDatabase } from '../support/scratch-database.js';

export const fixtureArchives = path.join(repoRoot, 'test/fixtures/archives');

export interface AdminResult {
  status: number | null;
  stdout: Buffer;
  stderr: string;
}

/** crm-admin with binary standard input and output (archives through `-`), and a generous deadline for a loaded machine. */
export function admin(args: string[], env: Record<string, string>, input?: Buffer): Promise<AdminResult> {
  return new Promise((resolve) => {
    const child = spawn(crmAdmin, args, { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', LOG_LEVEL: 'error', ...env } });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    const timer = setTimeout(() => child.kill('SIGTERM'), 180_000);
    child.once('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, stdout: Buffer.concat(out), stderr: status === null ? `${stderr}\n[ended by ${signal}]` : stderr });
    });
  });
}

/** Runs a command that must succeed; answers its --json output. */
export async function adminJson<T>(args: string[], env: Record<string, string>, input?: Buffer): Promise<T> {
  const res = await admin([...args, '--json'], env, input);
  expect(res.status, `crm-admin ${args.join(' ')}\n${res.stderr}`).to.equal(0);
  return JSON.parse(res.stdout.toString('utf8')) as T;
}

/** A world-reachable temp dir (an embedded PostgreSQL's OS user must reach data directories inside it). */
export function tempDir(label: string): string {
  const dir = path.join('/tmp', `crm-bk-${label}-${process.pid}-${crypto.randomBytes(3).toString('hex')}`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  fs.chmodSync(dir, 0o755);
  return dir;
}

export interface Site {
  url: string;
  dataDir: string;
  env: Record<string, string>;
  query<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

/** A database of its own (on the suite's server) and a data directory: what one installation is. Migrated unless `empty`. */
export async function site(label: string, options: { empty?: boolean; env?: Record<string, string> } = {}): Promise<Site> {
  // Migrated: a clone of the run's migrated template, as after `crm-admin db migrate` (which the
  // migration tests run), not every migration again for each installation.
  const scratch = await scratchDatabase(`bk_${label}`, { migrated: !options.empty });
  const dataDir = tempDir(label);
  const env = cliEnv({ DATABASE_URL: scratch.url, CRM_DATA_DIR: dataDir, SYNC_CRON: '0 0 1 1 *', ...options.env });
  return {
    url: scratch.url,
    dataDir,
    env,
    async query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) {
      const client = new pg.Client({ connectionString: scratch.url });
      await client.connect();
      try {
        return (await client.query<T>(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
    async drop() {
      await scratch.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Everything a restore could change, in one comparable value: the tables and their columns, the
 * applied migrations, and every table's row count and a checksum of its rows.
 */
export async function fingerprint(target: Site): Promise<Record<string, string>> {
  const columns = await target.query<{ table_name: string; cols: string }>(
    `SELECT table_name, string_agg(column_name || ':' || data_type, ',' ORDER BY column_name) AS cols
       FROM information_schema.columns WHERE table_schema = 'public' GROUP BY table_name ORDER BY table_name`,
  );
  const print: Record<string, string> = {};
  for (const { table_name: table, cols } of columns) {
    const [row] = await target.query<{ n: string; sum: string | null }>(`SELECT count(*)::text AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS sum FROM "${table}" t`);
    print[table] = `${cols} | ${row.n} rows | ${row.sum ?? '-'}`;
  }
  return print;
}

/** Users of a restored database: username and role. */
export async function usersOf(target: Site): Promise<string[]> {
  return (await target.query<{ u: string }>("SELECT username || ':' || role AS u FROM users ORDER BY username")).map((r) => r.u);
}

/** A copy of an archive with entries changed by `edit` (null drops the entry; same order, sizes recomputed). */
export async function rewriteArchive(src: string, dst: string, edit: (name: string, data: Buffer) => Buffer | null | Array<{ name: string; data: Buffer }>): Promise<void> {
  const extract = tar.extract();
  const pack = tar.pack();
  const output = pipeline(pack, zlib.createGzip(), fs.createWriteStream(dst));
  const input = pipeline(fs.createReadStream(src), zlib.createGunzip(), extract);
  for await (const entry of extract as AsyncIterable<AsyncIterable<Buffer> & { header: { name: string } }>) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk);
    const edited = edit(entry.header.name, Buffer.concat(chunks));
    if (edited === null) continue;
    for (const item of Array.isArray(edited) ? edited : [{ name: entry.header.name, data: edited }]) pack.entry({ name: item.name }, item.data);
  }
  pack.finalize();
  await input;
  await output;
}

/** The JSON entry of an archive, edited by `edit`, with the manifest's sha256 of the header recomputed when asked. */
export function editJson<T>(data: Buffer, edit: (value: T) => void): Buffer {
  const value = JSON.parse(data.toString('utf8')) as T;
  edit(value);
  return Buffer.from(JSON.stringify(value, null, 2));
}

export function sha256(data: Buffer): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}
