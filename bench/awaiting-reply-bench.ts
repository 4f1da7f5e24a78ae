/**
 * Conversations awaiting a reply on a large installation (docs/adr/0118-awaiting-reply.md): 1,000,000
 * emails (50 accounts x 20,000, bench/contacts-seed.ts: threads of four, about 30% of them awaiting a
 * reply). Prints, through the whole HTTP stack, p50/p99 of GET /api/emails/awaiting-reply for one
 * account's user and for a team member who reads all 50 accounts, and of the awaitingReply filter;
 * the query it replaces computed on the fly; and the write cost of the threads' triggers on the
 * sync's and the sent writer's upsert (with the triggers disabled = before migration 0028).
 *
 *   node --import=tsx/esm bench/awaiting-reply-bench.ts      # embedded PostgreSQL in /tmp (seeding takes minutes)
 *   BENCH_ACCOUNTS=50 BENCH_EMAILS=20000 BENCH_CONTACTS=500 BENCH_ITERATIONS=300 BENCH_KEEP=1
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { QueryTypes } from 'sequelize';
import { createApp } from '../src/app/http-app.js';
import { Sql } from '../src/db/sql.js';
import { awaitingListQuery } from '../src/emails/awaiting-query.js';
import type { AppContext } from '../src/app/context.js';
import type { MappedEmail } from '../src/sync/email-mapper.js';
import { MailStoreRepository, type EmailRow } from '../src/sync/mail-store-repository.js';
import { maintain, openBenchDatabase } from './bench-database.js';
import { explain, measure, percentile, report, scalar, scenario, type Scenario } from './bench-http.js';
import { seedMailbox, type SeededMailbox } from './contacts-seed.js';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 50);
const EMAILS = Number(process.env.BENCH_EMAILS ?? 20_000);
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 500);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 300);
const WRITE_ROUNDS = Number(process.env.BENCH_WRITE_ROUNDS ?? 40);
const TRIGGERS = ['emails_threads_add', 'emails_threads_remove', 'emails_threads_change'];

async function main(): Promise<void> {
  const db = await openBenchDatabase('awaiting', { BCRYPT_ROUNDS: '4' });
  const ctx = db.ctx;
  const server = http.createServer(createApp(ctx));
  try {
    console.log(
      `PostgreSQL: ${(await scalar(ctx, 'SELECT version()')).split(',')[0]}; load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} on ${os.cpus().length} CPUs`,
    );
    const started = Date.now();
    const seeded: SeededMailbox[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      seeded.push(await seedMailbox(ctx, `await${i}`, { contacts: CONTACTS, emails: EMAILS }));
      if ((i + 1) % 5 === 0) console.log(`  seeded ${i + 1}/${ACCOUNTS} accounts in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    // A team member who reads every account (the widest awaiting list there is).
    const { user: team } = await ctx.services.users.create({ username: `bench-team-${Date.now().toString(36)}`, role: 'member' }, { actor: 'bench' });
    // Past onboarding, as the seed's users (a temporary password only reaches the auth endpoints).
    team.password = await ctx.services.hasher.hash(`bench-${randomBytes(8).toString('hex')}`);
    team.changedPassword = true;
    team.tempPassword = null;
    team.tempPasswordExpiresAt = null;
    await team.save();
    for (const m of seeded) {
      await ctx.services.emailAccountSharing.share({ kind: 'admin' }, m.account.id, { userId: team.id, role: 'viewer', canRead: true, canSend: false }, { actor: 'bench' });
    }
    // What autovacuum does on a live system; on its own connection without the pool's statement timeout.
    await maintain(ctx, 'VACUUM ANALYZE contacts, emails, email_contacts, email_threads, email_account_members');
    console.log(
      `database: ${await scalar(ctx, 'SELECT count(*) FROM emails')} emails (${await scalar(ctx, 'SELECT count(*) FROM emails WHERE outbound')} outbound), ` +
        `${await scalar(ctx, 'SELECT count(*) FROM email_threads')} threads, ${await scalar(ctx, 'SELECT count(*) FROM email_threads WHERE awaiting')} awaiting; ` +
        `email_threads ${await scalar(ctx, "SELECT pg_size_pretty(pg_total_relation_size('email_threads'))")}; seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );

    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const m = seeded[Math.floor(seeded.length / 2)];
    const token = (await ctx.services.sessions.create(m.user, { rememberMe: false }, { actor: 'bench' })).accessToken;
    const teamToken = (await ctx.services.sessions.create(team, { rememberMe: false }, { actor: 'bench' })).accessToken;
    const scenarios: Scenario[] = [
      scenario('awaiting-reply, one account’s user', '/api/emails/awaiting-reply', token),
      scenario('awaiting-reply, olderThanHours=24', '/api/emails/awaiting-reply?olderThanHours=24', token),
      scenario('emails?awaitingReply=true (newest first)', '/api/emails?awaitingReply=true', token),
      scenario(`awaiting-reply, team member of ${ACCOUNTS} accounts`, '/api/emails/awaiting-reply', teamToken),
      scenario(`awaiting-reply, team member, one account`, `/api/emails/awaiting-reply?emailAccountId=${m.account.id}`, teamToken),
      scenario('awaiting-reply, team member, page 20', '/api/emails/awaiting-reply?page=20', teamToken),
    ];
    for (const s of scenarios) await measure(base, agent, s, 50, false);
    for (const s of scenarios) await measure(base, agent, s, ITERATIONS, true);
    agent.destroy();
    console.log(`\nLatency through HTTP (${(ACCOUNTS * EMAILS).toLocaleString('en')} emails)`);
    report(scenarios);

    const onTheFly = await timeSql(ctx, ON_THE_FLY, { accountId: m.account.id }, 30);
    console.log(
      `\nAlternative measured: the same page computed on the fly from emails (no email_threads), one account: p50 ${onTheFly.p50.toFixed(2)} ms, p99 ${onTheFly.p99.toFixed(2)} ms`,
    );

    const writes = await writeCost(ctx, m);
    console.log('\nWrite cost of the triggers (ms per batch; "before" = the triggers disabled, as before migration 0028)');
    for (const w of writes)
      console.log(
        `  ${w.name.padEnd(44)} before p50 ${w.before.p50.toFixed(2).padStart(7)}  after p50 ${w.after.p50.toFixed(2).padStart(7)}  (p99 ${w.before.p99.toFixed(2)} / ${w.after.p99.toFixed(2)})`,
      );
    const p50 = (s: Scenario) => +percentile(s.samples, 50).toFixed(2);
    console.log(JSON.stringify({ emails: ACCOUNTS * EMAILS, awaitingReplyP50Ms: p50(scenarios[0]), teamAwaitingReplyP50Ms: p50(scenarios[3]), target: '< 20' }, null, 2));

    await explain(ctx, 'awaiting reply, one account', awaitingListQuery(m.user.id, { awaitingReply: true, sort: 'oldest' }, { page: 1, limit: 50 }));
    await explain(ctx, `awaiting reply, ${ACCOUNTS} accounts`, awaitingListQuery(team.id, { awaitingReply: true, sort: 'oldest' }, { page: 1, limit: 50 }));
  } finally {
    server.close();
    await db.close({ keep: !!process.env.BENCH_KEEP });
  }
}

/** The page without email_threads: per inbound email, whether a later email of its thread exists. */
const ON_THE_FLY = `
  SELECT e.id, e.date FROM emails e
   WHERE e.email_account_id = $accountId AND NOT e.outbound AND e.thread_id IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM emails x WHERE x.email_account_id = e.email_account_id AND x.thread_id = e.thread_id
                       AND (x.date, x.id) > (e.date, e.id))
   ORDER BY e.date ASC, e.id DESC LIMIT 51`;

async function timeSql(ctx: AppContext, sql: string, bind: Record<string, unknown>, count: number): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  for (let i = 0; i < count + 5; i++) {
    const t0 = process.hrtime.bigint();
    await ctx.db.sequelize.query(sql, { bind, type: QueryTypes.SELECT });
    if (i >= 5) samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

/**
 * The sync's and the sent writer's upsert of new mail (1 email: a sent reply or new mail; 200: a sync
 * page) into the seeded account, and the sync's refresh of rows it has (the same 200 again), with the
 * threads' triggers enabled and disabled in turn.
 */
async function writeCost(ctx: AppContext, m: SeededMailbox) {
  const store = new MailStoreRepository(new Sql(ctx.db.sequelize));
  const account = { id: m.account.id, userId: m.user.id };
  const contacts = await ctx.db.sequelize.query<{ id: string; email: string }>('SELECT id, email FROM contacts WHERE email_account_id = $1 LIMIT 50', {
    bind: [m.account.id],
    type: QueryTypes.SELECT,
  });
  const batch = (size: number): EmailRow[] =>
    Array.from({ length: size }, (_, i) => {
      const c = contacts[i % contacts.length];
      const outbound = i % 3 === 0;
      return { mapped: mappedEmail(c.email, m.account.email, outbound, i), contactId: c.id, contactIds: [c.id] };
    });
  // The owner's to switch (ADR 0171): the service's role may not change a table.
  const toggle = (on: boolean) => maintain(ctx, TRIGGERS.map((t) => `ALTER TABLE emails ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ${t};`).join(' '));
  const results: Array<{ name: string; before: { p50: number; p99: number }; after: { p50: number; p99: number } }> = [];
  for (const [name, size, again] of [
    ['new mail / a sent reply (1 email)', 1, false],
    ['a sync page of new mail (200 emails)', 200, false],
    ['a sync page refreshing stored mail (200)', 200, true],
  ] as const) {
    const samples = { before: [] as number[], after: [] as number[] };
    for (let round = 0; round < WRITE_ROUNDS; round++) {
      for (const on of [false, true]) {
        await toggle(on);
        const rows = batch(size);
        if (again) await store.upsertEmails(account, rows);
        const t0 = process.hrtime.bigint();
        await ctx.db.sequelize.transaction(async (tx) => {
          await store.upsertEmails(account, rows, tx);
        });
        (on ? samples.after : samples.before).push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }
    const stats = (s: number[]) => ({ p50: percentile(s, 50), p99: percentile(s, 99) });
    results.push({ name, before: stats(samples.before), after: stats(samples.after) });
  }
  await toggle(true);
  return results;
}

function mappedEmail(contact: string, own: string, outbound: boolean, i: number): MappedEmail {
  const id = randomBytes(8).toString('hex');
  return {
    jmapId: `W${id}`,
    included: true,
    messageId: `${id}@bench.test`,
    // Half of the new mail joins existing threads of the seed, half starts new ones.
    threadId: i % 2 === 0 ? `T${i * 7}` : `TW${id}`,
    inReplyTo: null,
    from: outbound ? own : contact,
    to: outbound ? contact : own,
    subject: `Zápis ${id}`,
    body: 'Dobrý deň, posielam podklady.',
    isRead: false,
    date: new Date(),
    outbound,
    participants: [contact],
    correspondents: [{ email: contact, name: null }],
    hasAttachments: false,
    addresses: { from: [], to: [], cc: [], replyTo: [] },
  };
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
