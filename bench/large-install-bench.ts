/**
 * A large installation: 1,000,000 emails in the database (50 accounts x 20,000, generated inside
 * PostgreSQL by bench/contacts-seed.ts), and the pages a user opens most, through the whole HTTP
 * stack: the contact list, a contact's email page and full-text search over one account. Prints
 * p50/p99 against the targets (< 10 / < 10 / < 50 ms) and the EXPLAIN ANALYZE plans behind them.
 *
 *   node --import=tsx/esm bench/large-install-bench.ts       # embedded PostgreSQL in /tmp (seeding takes minutes; progress is printed)
 *   BENCH_DATABASE_URL=postgres://... node --import=tsx/esm bench/large-install-bench.ts   # an existing, empty database
 *   BENCH_ACCOUNTS=50 BENCH_EMAILS=20000 BENCH_CONTACTS=500 BENCH_ITERATIONS=600 BENCH_ROUNDS=3
 *   BENCH_KEEP=1   leave the embedded database running afterwards (its URL is printed) to study plans
 */
import http from 'node:http';
import os from 'node:os';
import { createApp } from '../src/app/http-app.js';
import { contactListQuery } from '../src/contacts/contact-query.js';
import { Sql } from '../src/db/sql.js';
import { emailListQuery } from '../src/emails/email-query.js';
import { SearchWordStatistics } from '../src/emails/search-terms.js';
import { maintain, openBenchDatabase } from './bench-database.js';
import { explain, measure, percentile, report, scalar, scenario, type Scenario } from './bench-http.js';
import { seedMailbox, type SeededMailbox } from './contacts-seed.js';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 50);
const EMAILS = Number(process.env.BENCH_EMAILS ?? 20_000);
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 500);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 600);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP = 100;

/** Words of the generated mail (bench/contacts-seed.ts): one in every email, and a selective pair. */
const SEARCH_COMMON = 'faktúra';
const SEARCH_SELECTIVE = 'objednávke 12345';
/** The same two words, the common one last (the word a user is still typing is often the last). */
const SEARCH_SELECTIVE_REVERSED = '12345 objednávke';

async function main(): Promise<void> {
  const db = await openBenchDatabase('large', { BCRYPT_ROUNDS: '4' });
  const ctx = db.ctx;
  const server = http.createServer(createApp(ctx));
  try {
    console.log(
      `PostgreSQL: ${(await scalar(ctx, 'SELECT version()')).split(',')[0]}; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} on ${os.cpus().length} CPUs`,
    );
    const started = Date.now();
    const seeded: SeededMailbox[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      seeded.push(await seedMailbox(ctx, `large${i}`, { contacts: CONTACTS, emails: EMAILS }));
      if ((i + 1) % 5 === 0 || i + 1 === ACCOUNTS) {
        const s = (Date.now() - started) / 1000;
        console.log(`  seeded ${i + 1}/${ACCOUNTS} accounts (${((i + 1) * EMAILS).toLocaleString('en')} emails) in ${s.toFixed(0)} s, load ${os.loadavg()[0].toFixed(2)}`);
      }
    }
    // What autovacuum does on a live system: statistics and the visibility map for index-only counts.
    await maintain(ctx, 'VACUUM ANALYZE contacts, emails, email_contacts');
    console.log(
      `database: ${await scalar(ctx, 'SELECT count(*) FROM emails')} emails, ${await scalar(ctx, 'SELECT count(*) FROM contacts')} contacts, ` +
        `${await scalar(ctx, 'SELECT count(*) FROM email_contacts')} links, ${await scalar(ctx, 'SELECT pg_size_pretty(pg_database_size(current_database()))')}; ` +
        `seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );

    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    // One account in the middle of the table (its rows are neither the first nor the last written).
    const m = seeded[Math.floor(seeded.length / 2)];
    const token = (await ctx.services.sessions.create(m.user, { rememberMe: false }, { actor: 'bench' })).accessToken;
    const search = (text: string) => `/api/emails?emailAccountId=${m.account.id}&search=${encodeURIComponent(text)}`;
    const primary: Scenario[] = [
      scenario('contact list', '/api/contacts', token),
      scenario('busiest contact’s email page', `/api/emails?contactId=${m.busiestContactId}`, token),
      scenario(`search "${SEARCH_COMMON}" (every email)`, search(SEARCH_COMMON), token),
      scenario(`search "${SEARCH_SELECTIVE}"`, search(SEARCH_SELECTIVE), token),
      scenario(`search "${SEARCH_SELECTIVE_REVERSED}"`, search(SEARCH_SELECTIVE_REVERSED), token),
    ];
    const extra: Scenario[] = [
      scenario('median contact’s email page', `/api/emails?contactId=${m.medianContactId}`, token),
      scenario('contacts sorted by name', '/api/contacts?sort=name', token),
      scenario('whole mailbox', '/api/emails', token),
    ];
    for (const s of [...primary, ...extra]) await measure(base, agent, s, WARMUP, false);
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of primary) await measure(base, agent, s, Math.ceil(ITERATIONS / ROUNDS), true);
      for (const s of extra) await measure(base, agent, s, Math.ceil(ITERATIONS / ROUNDS / 4), true);
    }
    agent.destroy();

    console.log(
      `\nLatency through HTTP, one user of ${ACCOUNTS} (${EMAILS.toLocaleString('en')} emails, ${m.contacts} contacts; busiest contact ${m.busiestContactEmails} emails)`,
    );
    report([...primary, ...extra]);
    const p50 = (s: Scenario) => +percentile(s.samples, 50).toFixed(2);
    console.log(
      `load average now: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log(
      JSON.stringify(
        {
          emails: ACCOUNTS * EMAILS,
          contactListP50Ms: p50(primary[0]),
          contactEmailPageP50Ms: p50(primary[1]),
          searchCommonP50Ms: p50(primary[2]),
          searchSelectiveP50Ms: p50(primary[3]),
          searchSelectiveReversedP50Ms: p50(primary[4]),
          targets: { contactList: '< 10', contactEmailPage: '< 10', search: '< 50' },
        },
        null,
        2,
      ),
    );

    await explain(ctx, 'contact list (GET /api/contacts)', contactListQuery(m.user.id, { sort: 'lastEmail' }, { page: 1, limit: 50 }));
    await explain(ctx, 'busiest contact’s emails (GET /api/emails?contactId=...)', emailListQuery(m.user.id, { contactId: m.busiestContactId }, { page: 1, limit: 50 }));
    // The word statistics the service reads (search-terms.ts): which words are checked on the found rows.
    const shares = await new SearchWordStatistics(new Sql(ctx.db.sequelize)).shares();
    for (const text of [SEARCH_COMMON, SEARCH_SELECTIVE, SEARCH_SELECTIVE_REVERSED]) {
      await explain(ctx, `search "${text}" in one account`, emailListQuery(m.user.id, { emailAccountId: m.account.id, search: text }, { page: 1, limit: 50 }, shares));
    }
  } finally {
    server.close();
    await db.close({ keep: !!process.env.BENCH_KEEP });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
