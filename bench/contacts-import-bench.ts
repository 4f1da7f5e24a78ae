/**
 * Contact import and export (issue 46): a 10,000-row CSV imported into a mailbox through
 * ContactImportService (the service of POST /api/contacts/import and crm-admin contacts import), once
 * new (10,000 created), once again (10,000 unchanged), and a dry run; then the export of a mailbox of
 * 100,000 contacts through ContactExportService into a reader that takes every chunk, as CSV and as
 * vCard. Prints the wall time of each and the process's resident memory (RSS) before and at its
 * peak (sampled every 20 ms), so a bounded export shows as a flat RSS whatever the mailbox's size.
 *
 *   node --import=tsx/esm bench/contacts-import-bench.ts          # embedded PostgreSQL in a temp dir, removed afterwards
 *   BENCH_EXPORT_CONTACTS=200000 node --import=tsx/esm bench/contacts-import-bench.ts
 *   BENCH_DATABASE_URL=postgres://... node --import=tsx/esm bench/contacts-import-bench.ts
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { Writable } from 'node:stream';
import type { AppContext } from '../src/app/context.js';
import { EmailAccount } from '../src/models/index.js';
import { maintain, openBenchDatabase } from './bench-database.js';
import { scalar } from './bench-http.js';

const IMPORT_ROWS = 10_000;
const EXPORT_CONTACTS = Number(process.env.BENCH_EXPORT_CONTACTS ?? 100_000);

const FIRST = ['Ľubomír', 'Peter', 'Zuzana', 'Mária', 'Jozef', 'Anna', 'Michal', 'Eva', 'Lukáš', 'Katarína', 'Tomáš', 'Jana'];
const LAST = ['Šebo', 'Horváth', 'Varga', 'Tóth', 'Nagy', 'Baláž', 'Ďurica', 'Molnár', 'Šťastná', 'Lukáč', 'Novák', 'Kollár'];
const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** Runs `work`, sampling RSS meanwhile; answers its result, seconds and the peak RSS. */
async function measured<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number; rssBefore: number; rssPeak: number }> {
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
  const started = process.hrtime.bigint();
  try {
    const value = await work();
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    return { value, seconds: Number(process.hrtime.bigint() - started) / 1e9, rssBefore, rssPeak };
  } finally {
    clearInterval(sampler);
  }
}

async function mailbox(ctx: AppContext, label: string): Promise<{ userId: string; accountId: string }> {
  const { user } = await ctx.services.users.create({ username: `bench-${label}-${Date.now().toString(36)}`, role: 'member' }, { actor: 'bench' });
  const id = randomUUID();
  const address = `${user.username}@bench.test`;
  await EmailAccount.create({
    id,
    userId: user.id,
    email: address,
    emailPassword: ctx.services.emailAccounts.sealPassword(id, 'x'),
    jmapAccountId: address,
    isPrimary: true,
    isActive: true,
  });
  return { userId: user.id, accountId: id };
}

/** An Excel-style file: BOM, semicolons, CRLF, diacritics; a company on every third row (500 domains). */
function excelCsv(rows: number): Buffer {
  const lines = ['\uFEFFname;email;phone;company;title;tags;notes'];
  for (let i = 0; i < rows; i++) {
    const first = FIRST[i % FIRST.length];
    const last = LAST[Math.floor(i / 7) % LAST.length];
    const company = i % 3 === 0 ? `Firma ${i % 500} s.r.o.` : '';
    lines.push(
      `${first} ${last};${fold(first)}.${fold(last)}${i}@firma${i % 500}.sk;+421 905 ${String(i).padStart(6, '0')};${company};Obchodník;zákazník, Žilina;Poznámka k riadku ${i + 2}`,
    );
  }
  return Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8');
}

/** A reader that takes every chunk at once, counting bytes. */
function sink(): { target: Writable; bytes: () => number } {
  let bytes = 0;
  const target = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      done();
    },
  });
  return { target, bytes: () => bytes };
}

async function main(): Promise<void> {
  const db = await openBenchDatabase('contacts-import');
  const { ctx } = db;
  try {
    const load = os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
    console.log(`PostgreSQL: ${(await scalar(ctx, 'SELECT version()')).split(',')[0]}; ${os.cpus().length} cores, load average ${load} (a shared machine: figures vary)`);
    const meta = { actor: 'bench' };

    const into = await mailbox(ctx, 'import');
    const file = excelCsv(IMPORT_ROWS);
    console.log(`\nimport of ${IMPORT_ROWS} CSV rows (${mb(file.length)}) into an empty mailbox`);
    const runs: Array<[string, boolean]> = [
      ['dry run (new)', true],
      ['real run (new)', false],
      ['real run (same file again)', false],
    ];
    for (const [label, dryRun] of runs) {
      const r = await measured(() => ctx.services.contactImport.import(into.userId, { emailAccountId: into.accountId, file, dryRun }, meta));
      const { created, updated, unchanged, invalid } = r.value;
      console.log(
        `  ${label.padEnd(28)} ${r.seconds.toFixed(2).padStart(6)} s   created ${created}, updated ${updated}, unchanged ${unchanged}, invalid ${invalid.length}   RSS ${mb(r.rssBefore)} -> peak ${mb(r.rssPeak)}`,
      );
    }

    const from = await mailbox(ctx, 'export');
    const seeded = Date.now();
    for (let start = 0; start < EXPORT_CONTACTS; start += 20_000) {
      await ctx.db.sequelize.query(
        `INSERT INTO contacts (user_id, email_account_id, email, name, phone, title, tags, notes)
         SELECT $userId::uuid, $accountId::uuid, format('kontakt%s@firma%s.sk', g, g % 1000), format('Kontakt Číslo %s', g),
                '+421 905 ' || lpad(g::text, 6, '0'), 'Riaditeľ', ARRAY['zákazník', 'VIP'], 'Poznámka: =SUM(A1) ' || g
           FROM generate_series($from::int, $to::int - 1) g`,
        { bind: { userId: from.userId, accountId: from.accountId, from: start, to: Math.min(EXPORT_CONTACTS, start + 20_000) } },
      );
    }
    await maintain(ctx, 'VACUUM ANALYZE contacts');
    console.log(`\nexport of a mailbox of ${EXPORT_CONTACTS} contacts (seeded in ${((Date.now() - seeded) / 1000).toFixed(1)} s), streamed in batches of 500`);
    for (const format of ['csv', 'vcf'] as const) {
      const out = sink();
      const r = await measured(() => ctx.services.contactExport.export(from.userId, { emailAccountId: from.accountId, format, delimiter: 'semicolon' }, out.target, meta));
      console.log(`  ${format.padEnd(4)} ${r.value} contacts, ${mb(out.bytes())}   ${r.seconds.toFixed(2).padStart(6)} s   RSS ${mb(r.rssBefore)} -> peak ${mb(r.rssPeak)}`);
    }
  } finally {
    await db.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
