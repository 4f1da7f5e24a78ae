/**
 * Contacts and emails API on a large mailbox: p50/p99 of the contact list and of a contact's email
 * page through the whole HTTP stack (listening server, keep-alive client, real auth middleware), for
 * a user with 100,000 emails / 2,000 contacts against a user with 1,000 emails, in one run. The large
 * mailbox is shared with 20 users (docs/contract.md §4.3); one of them, who also has a
 * 1,000-email mailbox of their own, is measured too: their lists span both accounts.
 * Then the EXPLAIN (ANALYZE, BUFFERS) plans of the queries behind those pages.
 *
 *   node --import=tsx/esm bench/contacts-bench.ts            # embedded PostgreSQL in a temp dir, removed afterwards
 *   BENCH_DATABASE_URL=postgres://... node --import=tsx/esm bench/contacts-bench.ts   # an existing database (bench users are deleted at the end)
 *   BENCH_ITERATIONS=2000 BENCH_ROUNDS=5 ...   # per scenario: rounds interleave the scenarios to cancel drift
 */
import http from 'node:http';
import os from 'node:os';
import { contactListQuery } from '../src/contacts/contact-query.js';
import { emailListQuery } from '../src/emails/email-query.js';
import { createApp } from '../src/app/http-app.js';
import { User } from '../src/models/index.js';
import { maintain, openBenchDatabase } from './bench-database.js';
import { explain, measure, percentile, report, scalar, scenario, type Scenario } from './bench-http.js';
import { seedMailbox, shareMailbox, type SeededMailbox } from './contacts-seed.js';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP = 200;
/** Smaller mailboxes for a quick look while developing; the figures to report use the defaults. */
const LARGE_EMAILS = Number(process.env.BENCH_LARGE_EMAILS ?? 100_000);
const SHARED_WITH = 20;

async function main(): Promise<void> {
  const db = await openBenchDatabase('contacts');
  const ctx = db.ctx;
  const seeded: SeededMailbox[] = [];
  const memberIds: string[] = [];
  const server = http.createServer(createApp(ctx));
  try {
    console.log(
      `PostgreSQL: ${(await scalar(ctx, 'SELECT version()')).split(',')[0]}; load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${os.cpus().length} CPUs`,
    );
    const started = Date.now();
    const large = await seedMailbox(ctx, 'large', { contacts: 2000, emails: LARGE_EMAILS });
    seeded.push(large);
    const small = await seedMailbox(ctx, 'small', { contacts: 100, emails: 1000 });
    seeded.push(small);
    const shared = await shareMailbox(ctx, large, SHARED_WITH, { contacts: 100, emails: 1000 });
    memberIds.push(...shared.members.map((u) => u.id));
    const member = shared.own;
    // What autovacuum does on a live system: statistics and the visibility map for index-only counts.
    await maintain(ctx, 'VACUUM ANALYZE contacts, emails, email_contacts, email_account_members');
    console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (const [label, m] of [
      ['large', large],
      ['small', small],
      ["member's own", member],
    ] as const) {
      console.log(
        `  ${label}: ${m.emails} emails, ${m.contacts} contacts, ${m.links} links; busiest contact ${m.busiestContactEmails} emails, median contact ${m.medianContactEmails}`,
      );
    }

    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const tokenOf = async (m: SeededMailbox) => (await ctx.services.sessions.create(m.user, { rememberMe: false }, { actor: 'bench' })).accessToken;
    const [largeToken, smallToken, memberToken] = [await tokenOf(large), await tokenOf(small), await tokenOf(member)];
    console.log(`  the large mailbox is shared with ${SHARED_WITH} users; "member" is one of them (editor) with a 1k mailbox of their own`);

    const primary: Scenario[] = [
      scenario('contacts, 100k mailbox', '/api/contacts', largeToken),
      scenario('contacts, 1k mailbox', '/api/contacts', smallToken),
      scenario('busiest contact’s emails, 100k', `/api/emails?contactId=${large.busiestContactId}`, largeToken),
      scenario('busiest contact’s emails, 1k', `/api/emails?contactId=${small.busiestContactId}`, smallToken),
      scenario('contacts, 100k shared (member: 1k own + 100k shared)', '/api/contacts', memberToken),
      scenario('busiest contact’s emails, 100k shared, as member', `/api/emails?contactId=${large.busiestContactId}`, memberToken),
    ];
    const extra: Scenario[] = [
      scenario('median contact’s emails, 100k', `/api/emails?contactId=${large.medianContactId}`, largeToken),
      scenario('median contact’s emails, 1k', `/api/emails?contactId=${small.medianContactId}`, smallToken),
      scenario('contacts sorted by name, 100k', '/api/contacts?sort=name', largeToken),
      scenario('contacts page 40 (of 40), 100k', '/api/contacts?page=40', largeToken),
      scenario('unread mailbox, 100k', '/api/emails?unread=true', largeToken),
      scenario('whole mailbox, 100k', '/api/emails', largeToken),
      scenario('whole mailbox, 1k', '/api/emails', smallToken),
      scenario('search "faktúra 99", 100k', `/api/emails?search=${encodeURIComponent('faktúra 99')}`, largeToken),
      scenario('contacts sorted by name, 100k shared, as member', '/api/contacts?sort=name', memberToken),
      scenario('contacts page 40, 100k shared, as member', '/api/contacts?page=40', memberToken),
      scenario('whole mailbox, 100k shared, as member', '/api/emails', memberToken),
      scenario('unread mailbox, 100k shared, as member', '/api/emails?unread=true', memberToken),
    ];
    for (const s of [...primary, ...extra]) await measure(base, agent, s, WARMUP, false);
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of primary) await measure(base, agent, s, Math.ceil(ITERATIONS / ROUNDS), true);
      for (const s of extra) await measure(base, agent, s, Math.ceil(ITERATIONS / ROUNDS / 4), true);
    }
    agent.destroy();

    console.log(`\nLatency through HTTP (sequential keep-alive requests, ${ITERATIONS} per main scenario, ${ROUNDS} interleaved rounds)`);
    report([...primary, ...extra]);
    const ratio = (a: Scenario, b: Scenario) => percentile(a.samples, 50) / percentile(b.samples, 50);
    console.log(
      `load average now: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      `\np50 ratio 100k/1k: contact list ${ratio(primary[0], primary[1]).toFixed(2)}x, contact's emails ${ratio(primary[2], primary[3]).toFixed(2)}x (target <= 1.5x, p50 < 10 ms)`,
    );
    console.log(
      `p50 ratio 100k shared with ${SHARED_WITH}, as a member / 1k: contact list ${ratio(primary[4], primary[1]).toFixed(2)}x, contact's emails ${ratio(primary[5], primary[3]).toFixed(2)}x (target <= 1.5x, p50 < 10 ms)`,
    );

    await explain(ctx, 'contact list, 100k mailbox (GET /api/contacts)', contactListQuery(large.user.id, { sort: 'lastEmail' }, { page: 1, limit: 50 }));
    await explain(
      ctx,
      'busiest contact’s emails, 100k mailbox (GET /api/emails?contactId=...)',
      emailListQuery(large.user.id, { contactId: large.busiestContactId }, { page: 1, limit: 50 }),
    );
    await explain(
      ctx,
      `contact list of a member: own 1k + 100k shared with ${SHARED_WITH} (GET /api/contacts)`,
      contactListQuery(member.user.id, { sort: 'lastEmail' }, { page: 1, limit: 50 }),
    );
    await explain(
      ctx,
      'busiest contact’s emails, 100k shared, as a member (GET /api/emails?contactId=...)',
      emailListQuery(member.user.id, { contactId: large.busiestContactId }, { page: 1, limit: 50 }),
    );
    if (process.env.BENCH_EXPLAIN_ALL) {
      await explain(ctx, 'whole mailbox, 100k (GET /api/emails)', emailListQuery(large.user.id, {}, { page: 1, limit: 50 }));
      await explain(ctx, 'unread mailbox, 100k (GET /api/emails?unread=true)', emailListQuery(large.user.id, { unread: true }, { page: 1, limit: 50 }));
      await explain(ctx, 'search, 100k', emailListQuery(large.user.id, { search: 'faktúra 99' }, { page: 1, limit: 50 }));
      await explain(ctx, 'whole mailbox of a member: own 1k + 100k shared (GET /api/emails)', emailListQuery(member.user.id, {}, { page: 1, limit: 50 }));
    }
  } finally {
    server.close();
    if (process.env.BENCH_DATABASE_URL) await User.destroy({ where: { id: [...seeded.map((m) => m.user.id), ...memberIds] } }).catch(() => undefined);
    await db.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
