/**
 * Mailbox search at a million emails (issue 36): every case, the new query (stored documents,
 * migration 0030) through the whole HTTP stack and as SQL, beside release 0.2's query (computed
 * documents behind the expression index, test/support/old-email-search.ts) as SQL, in the same
 * process on the same data; p50/p99 each, and whether both found the same page and total.
 *
 *   node --import=tsx/esm bench/search-1m-bench.ts        # embedded PostgreSQL in /tmp; seeding 1M emails takes many minutes
 *   BENCH_DATABASE_URL=postgres://... node --import=tsx/esm bench/search-1m-bench.ts   # reuse a database seeded before (bench/search-seed-run.ts)
 *   BENCH_ACCOUNTS=50 BENCH_EMAILS=20000 BENCH_ITERATIONS=40 BENCH_OLD_ITERATIONS=5
 *   BENCH_CASES=5-  only some cases (from-to, 1-based)
 *   BENCH_OLD=0    skip the old query (it needs its expression index, built here if missing: minutes at 1M)
 *   BENCH_KEEP=1   leave the embedded database running afterwards (its URL is printed)
 *   BENCH_SHAPE=one-user  issue 49's shape: one user whose three mailboxes hold the million (bench/search-install.ts,
 *                  oneUserInstall) and its cases: word forms, a domain, an attachment name, a phrase, GET /api/search.
 *                  The "repo" column is EmailRepository.listPage (what a request runs: the statistics, the count of
 *                  the index's hits where it applies, the page and its total), so the same file times release 0.5's
 *                  code and this one (run it from a checkout of each against the same data, in alternating rounds).
 */
import http from 'node:http';
import os from 'node:os';
import { createApp } from '../src/app/http-app.js';
import { Sql } from '../src/db/sql.js';
import { emailListQuery, type EmailFilter } from '../src/emails/email-query.js';
import { SearchWordStatistics, type WordShares } from '../src/emails/search-terms.js';
import { oldEmailListQuery } from '../test/support/old-email-search.js';
import { maintain, openBenchDatabase } from './bench-database.js';
import { measure, percentile, scalar, scenario } from './bench-http.js';
import { oneUserInstall, searchInstall } from './search-install.js';
import { EmailRepository } from '../src/emails/email-repository.js';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 50);
const EMAILS = Number(process.env.BENCH_EMAILS ?? 20_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 40);
const OLD_ITERATIONS = Number(process.env.BENCH_OLD_ITERATIONS ?? 5);
const OLD = process.env.BENCH_OLD !== '0';
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

interface Case {
  name: string;
  user: 'owner' | 'member';
  filter: EmailFilter;
  page?: number;
}

async function main(): Promise<void> {
  const opened = Date.now();
  const db = await openBenchDatabase('search', { BCRYPT_ROUNDS: '4' });
  const ctx = db.ctx;
  const sequelize = ctx.db.sequelize;
  console.log(`database ${db.url}; opened and migrated in ${((Date.now() - opened) / 1000).toFixed(1)} s; load average ${load()} on ${os.cpus().length} CPUs`);
  const oneUser = process.env.BENCH_SHAPE === 'one-user';
  const install = oneUser
    ? await oneUserInstall(ctx, { mailboxes: 3, emails: Number(process.env.BENCH_EMAILS ?? 333_334), contacts: 500 })
    : await searchInstall(ctx, { accounts: ACCOUNTS, emails: EMAILS, contacts: 500 });
  const sql = new Sql(sequelize);
  // BENCH_HTTP=0: the repository (and the search service) alone, without the HTTP stack.
  const withHttp = process.env.BENCH_HTTP !== '0';
  const server = http.createServer(withHttp ? createApp(ctx) : () => undefined);
  try {
    await maintain(ctx, 'VACUUM ANALYZE email_search');
    console.log(
      `${await scalar(ctx, 'SELECT count(*) FROM emails')} emails; email_search ${await scalar(ctx, "SELECT pg_size_pretty(pg_total_relation_size('email_search'))")} ` +
        `(table ${await scalar(ctx, "SELECT pg_size_pretty(pg_table_size('email_search'))")}, GIN ${await scalar(ctx, "SELECT pg_size_pretty(pg_relation_size('email_search_document_idx'))")}, ` +
        `date index ${await scalar(ctx, "SELECT pg_size_pretty(pg_relation_size('email_search_account_date_idx'))")}); emails ${await scalar(ctx, "SELECT pg_size_pretty(pg_total_relation_size('emails'))")}`,
    );
    let oldShares: WordShares = new Map();
    if (OLD) oldShares = await oldIndex(ctx);

    const { owner, member, ownerAccountId, busiestContactId } = install;
    const issue49: Case[] = [
      { name: 'common word', user: 'owner', filter: { search: 'faktúra' } },
      { name: 'two common words', user: 'owner', filter: { search: 'dobrý deň' } },
      { name: 'common word, page 5', user: 'owner', filter: { search: 'faktúra' }, page: 5 },
      { name: 'common word, one account', user: 'owner', filter: { search: 'faktura', emailAccountId: ownerAccountId } },
      { name: 'common word, member with 2 accounts', user: 'member', filter: { search: 'dobry den' } },
      { name: 'word in 1 % "reklamácia"', user: 'owner', filter: { search: 'reklamácia' } },
      { name: 'rare word, 3 emails "333333"', user: 'owner', filter: { search: '333333' } },
      { name: 'common + rare "objednávke 333333"', user: 'owner', filter: { search: 'objednávke 333333' } },
      { name: 'no match "nikde"', user: 'owner', filter: { search: 'nikde' } },
      { name: 'no match "objednavkou1"', user: 'owner', filter: { search: 'objednavkou1' } },
      { name: 'short prefix "fa"', user: 'owner', filter: { search: 'fa' } },
      { name: 'within one contact, common word', user: 'owner', filter: { search: 'faktúra', contactId: busiestContactId } },
      { name: 'unread + common word', user: 'owner', filter: { search: 'faktúra', unread: true } },
      { name: 'base form -> inflected "zmluva"', user: 'owner', filter: { search: 'zmluva' } },
      { name: 'base form -> inflected "paleta"', user: 'owner', filter: { search: 'paleta' } },
      { name: 'domain "tatralogistika"', user: 'owner', filter: { search: 'tatralogistika' } },
      { name: 'domain "tatralogistika.sk"', user: 'owner', filter: { search: 'tatralogistika.sk' } },
      { name: 'attachment "faktúra-2026-118"', user: 'owner', filter: { search: 'faktúra-2026-118' } },
      { name: 'phrase "\"dodací list\""', user: 'owner', filter: { search: '"dodací list"' } },
    ];
    const cases: Case[] = oneUser
      ? issue49
      : [
          { name: 'common word, no account filter', user: 'owner', filter: { search: 'faktúra' } },
          { name: 'common word, one account', user: 'owner', filter: { search: 'faktúra', emailAccountId: ownerAccountId } },
          { name: 'common word, member with 2 accounts', user: 'member', filter: { search: 'faktúra' } },
          { name: 'two common words', user: 'owner', filter: { search: 'dobrý deň' } },
          { name: 'two common words, member', user: 'member', filter: { search: 'dobry den' } },
          { name: 'common word, page 5', user: 'owner', filter: { search: 'faktúra' }, page: 5 },
          { name: 'unread + common word', user: 'owner', filter: { search: 'faktúra', unread: true } },
          { name: 'common word, oldest first', user: 'owner', filter: { search: 'faktura', sort: 'oldest' } },
          {
            name: 'common word, date range',
            user: 'owner',
            filter: { search: 'faktura', from: new Date(Date.now() - 30 * 86_400_000), before: new Date(Date.now() - 10 * 86_400_000) },
          },
          { name: 'within one contact, common word', user: 'owner', filter: { search: 'faktúra', contactId: busiestContactId } },
          { name: 'short prefix "f"', user: 'owner', filter: { search: 'f' } },
          { name: 'short prefix "fa"', user: 'owner', filter: { search: 'fa' } },
          { name: 'prefix "obj"', user: 'owner', filter: { search: 'obj' } },
          { name: 'rare word "12345"', user: 'owner', filter: { search: '12345' } },
          { name: 'rare + common "objednávke 12345"', user: 'owner', filter: { search: 'objednávke 12345' } },
          { name: 'rare + common, member', user: 'member', filter: { search: '12345 objednávke' } },
          { name: 'no match "nikde"', user: 'owner', filter: { search: 'nikde' } },
        ];
    const newShares = await new SearchWordStatistics(sql).shares();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    // API tokens (issue 48): the same authentication middleware and scopes as a session's requests.
    const scopes = ['emails:read', 'contacts:read', 'companies:read', 'conversations:read'] as const;
    const tokenOf = async (u: typeof owner) =>
      withHttp ? (await ctx.services.apiTokens.create(u, { name: `bench ${Date.now()}`, scopes: [...scopes] }, { actor: 'bench' })).token : '';
    const tokens = { owner: await tokenOf(owner), member: await tokenOf(member) };
    const userId = { owner: owner.id, member: member.id };
    const rows: string[][] = [];
    // BENCH_CASES=5-: only the cases from the fifth on (a run cut short can go on where it stopped).
    const [first, last] = (process.env.BENCH_CASES ?? '1-').split('-').map((n) => Number(n || cases.length));
    for (const c of cases.slice(first - 1, last)) {
      const page = { page: c.page ?? 1, limit: 50 };
      const s = scenario(c.name, `/api/emails?${query(c.filter, page.page)}`, tokens[c.user]);
      if (withHttp) {
        await measure(base, agent, s, 3, false);
        await measure(base, agent, s, ITERATIONS, true);
      } else s.samples.push(NaN);
      const fresh = emailListQuery(userId[c.user], c.filter, page, newShares);
      const newSql = oneUser ? await timeRepository(new EmailRepository(sql), userId[c.user], c.filter, page, ITERATIONS) : await timeSql(sql, fresh, ITERATIONS);
      let oldCols = ['-', '-', '-'];
      if (OLD) {
        const old = oldEmailListQuery(userId[c.user], c.filter, page, oldShares);
        // The pool's 30 s statement timeout ends the slowest old runs on a loaded machine.
        const oldSql = await timeSql(sql, old, OLD_ITERATIONS).catch(() => null);
        const same = oldSql && JSON.stringify(oldSql.result) === JSON.stringify(newSql.result);
        oldCols = oldSql ? [oldSql.p50.toFixed(1), oldSql.p99.toFixed(1), same ? 'same' : 'DIFFERENT'] : ['> 30000', 'timeout', '-'];
      }
      rows.push([c.name, percentile(s.samples, 50).toFixed(1), percentile(s.samples, 99).toFixed(1), newSql.p50.toFixed(1), ...oldCols, String(newSql.result.total)]);
      console.log(`  ${rows.at(-1)!.join(' | ')} (load ${os.loadavg()[0].toFixed(2)})`);
    }
    if (oneUser) {
      // The one search box; a checkout without it (release 0.5) answers 404 and shows '-'.
      for (const q of ['faktúra', 'tatralogistika', 'zmluva 333333']) {
        const s = scenario(`GET /api/search?q=${q}`, `/api/search?${new URLSearchParams({ q, limit: '5' }).toString()}`, tokens.owner);
        const ok = withHttp
          ? await measure(base, agent, s, 3, false).then(
              () => true,
              () => false,
            )
          : false;
        if (ok) await measure(base, agent, s, ITERATIONS, true);
        // The service below HTTP (a checkout without it: '-').
        const service = (ctx.services as unknown as Record<string, unknown>).search as { search(u: string, q: string, l: number, k: Set<string>): Promise<unknown> } | undefined;
        const times: number[] = [];
        for (let i = 0; service && i < ITERATIONS + 1; i++) {
          const t0 = process.hrtime.bigint();
          await service.search(owner.id, q, 5, new Set(['people', 'companies', 'conversations']));
          if (i > 0) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
        rows.push([
          s.name,
          ok ? percentile(s.samples, 50).toFixed(1) : '-',
          ok ? percentile(s.samples, 99).toFixed(1) : '-',
          times.length ? percentile(times, 50).toFixed(1) : '-',
          '-',
          '-',
          '-',
          '-',
        ]);
        console.log(`  ${rows.at(-1)!.join(' | ')} (load ${os.loadavg()[0].toFixed(2)})`);
      }
    }
    agent.destroy();
    console.log(`\nSearch at ${await scalar(ctx, 'SELECT count(*) FROM emails')} emails, pages of 50 (ms; HTTP: ${ITERATIONS} requests, old SQL: ${OLD_ITERATIONS} runs)`);
    table(['case', 'HTTP p50', 'HTTP p99', oneUser ? 'repo p50' : 'new SQL p50', 'old SQL p50', 'old SQL p99', 'page+total', 'total'], rows);
    console.log(`load average now: ${load()}`);
  } finally {
    server.close();
    await db.close({ keep: !!process.env.BENCH_KEEP });
  }
}

/** Release 0.2's expression index (dropped by migration 0030), for the old query's baseline, and its word statistics. */
async function oldIndex(ctx: Awaited<ReturnType<typeof openBenchDatabase>>['ctx']): Promise<WordShares> {
  const t0 = Date.now();
  // Not through the app's pool: its statements time out after 30 s.
  const pg = (await import('pg')).default;
  // As the schema's owner: an index on its table is the owner's to create (ADR 0171).
  const client = new pg.Client({ connectionString: ctx.db.ownerUrl ?? ctx.config.databaseUrl });
  await client.connect();
  await client.query("SET maintenance_work_mem = '256MB'");
  await client.query('CREATE INDEX IF NOT EXISTS emails_search_idx ON emails USING gin (crm_email_search_vector(subject, body, "from", "to"))');
  await client.query('ANALYZE emails');
  const { rows } = await client.query<{ lexemes: string[] | null; shares: number[] | null }>(
    `SELECT most_common_elems::text::text[] AS lexemes, most_common_elem_freqs::float8[] AS shares
       FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'emails_search_idx' AND attname = 'crm_email_search_vector'`,
  );
  const size = (await client.query<{ s: string }>("SELECT pg_size_pretty(pg_relation_size('emails_search_idx')) AS s")).rows[0].s;
  await client.end();
  console.log(`old expression index ready in ${((Date.now() - t0) / 1000).toFixed(0)} s (${size}; kept for the next run, drop it by hand)`);
  const shares = new Map<string, number>();
  rows[0]?.lexemes?.forEach((lexeme, i) => shares.set(lexeme, rows[0].shares?.[i] ?? 0));
  return shares;
}

/** EmailRepository.listPage n times (what a request runs below HTTP): p50 / p99 and the last answer. */
async function timeRepository(repo: EmailRepository, userId: string, filter: EmailFilter, page: { page: number; limit: number }, n: number) {
  const samples: number[] = [];
  let result = { ids: [] as string[], total: 0 };
  for (let i = 0; i < n + 1; i++) {
    const t0 = process.hrtime.bigint();
    const listed = await repo.listPage(userId, filter, page);
    if (i > 0) samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    result = { ids: listed.items.map((e) => e.id), total: listed.count.total };
  }
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), result };
}

/** The page and its total as the repository runs them (both at once), n times: p50 / p99 and the last answer. */
async function timeSql(sql: Sql, q: { pageSql: string; countSql: string; bind: Record<string, unknown> }, n: number) {
  const samples: number[] = [];
  let result = { ids: [] as string[], total: 0 };
  for (let i = 0; i < n + 1; i++) {
    const t0 = process.hrtime.bigint();
    const [rows, count] = await Promise.all([sql.select<{ id: string }>(q.pageSql, q.bind), sql.one<{ total: number }>(q.countSql, q.bind)]);
    if (i > 0) samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    result = { ids: rows.map((r) => r.id), total: count!.total };
  }
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), result };
}

function query(filter: EmailFilter, page: number): string {
  const q = new URLSearchParams();
  if (filter.search) q.set('search', filter.search);
  if (filter.emailAccountId) q.set('emailAccountId', filter.emailAccountId);
  if (filter.contactId) q.set('contactId', filter.contactId);
  if (filter.unread !== undefined) q.set('unread', String(filter.unread));
  if (filter.sort) q.set('sort', filter.sort);
  if (filter.from) q.set('from', filter.from.toISOString());
  // The API's `to` is inclusive; one millisecond before `before` is the same exclusive bound.
  if (filter.before) q.set('to', new Date(filter.before.getTime() - 1).toISOString());
  if (page > 1) q.set('page', String(page));
  return q.toString();
}

function table(head: string[], rows: string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(head));
  for (const r of rows) console.log(line(r));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
