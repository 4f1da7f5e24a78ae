/**
 * The team inbox at a million emails (issue 45, docs/adr/0129-team-inbox.md): three mailboxes
 * (bench/contacts-seed.ts: threads of four, a third awaiting a reply) read by one team member (editor on
 * all three, reads of their own for 90 % of the mail, 2 % of the threads assigned to them). Prints,
 * through the whole HTTP stack, p50/p99 of the conversation list, assignee=me, unread=true and a
 * search; of marking a thread of 50 emails read; and the write cost of a sync page (the first sync's
 * unit of work) with migration 0033's thread functions against 0028's, alternating in the same run.
 *
 *   node --import=tsx/esm bench/conversations-bench.ts   # embedded PostgreSQL in /tmp (seeding takes minutes)
 *   BENCH_ACCOUNTS=3 BENCH_EMAILS=333334 BENCH_CONTACTS=2000 BENCH_ITERATIONS=100 BENCH_WRITE_ROUNDS=30 BENCH_KEEP=1
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { QueryTypes } from 'sequelize';
import { createApp } from '../src/app/http-app.js';
import { Sql } from '../src/db/sql.js';
import { withoutQueryTimeout } from '../src/db/connection-settings.js';
import type { AppContext } from '../src/app/context.js';
import { MailStoreRepository, type EmailRow } from '../src/sync/mail-store-repository.js';
import { threadFunctions0028 } from '../migrations/0033-team-inbox.js';
import { maintain, openBenchDatabase } from './bench-database.js';
import { measure, percentile, report, scalar, scenario, type Scenario } from './bench-http.js';
import { onboardedMember, seedMailbox, type SeededMailbox } from './contacts-seed.js';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 3);
const EMAILS = Number(process.env.BENCH_EMAILS ?? 333_334);
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 2000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const WRITE_ROUNDS = Number(process.env.BENCH_WRITE_ROUNDS ?? 30);

async function main(): Promise<void> {
  const db = await openBenchDatabase('inbox', { BCRYPT_ROUNDS: '4' });
  const ctx = db.ctx;
  const sequelize = ctx.db.sequelize;
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
    for (let i = 0; i < ACCOUNTS; i++) seeded.push(await seedMailbox(ctx, `inbox${i}`, { contacts: CONTACTS, emails: EMAILS }));
    const team = await onboardedMember(ctx, 'team');
    for (const m of seeded) {
      await ctx.services.emailAccountSharing.share({ kind: 'admin' }, m.account.id, { userId: team.id, role: 'editor', canRead: true, canSend: false }, { actor: 'bench' });
    }
    // Set-based statements over a million rows: no client-side query timeout, a long statement timeout.
    await withoutQueryTimeout(() =>
      sequelize.transaction(async (transaction) => {
        await sequelize.query("SET LOCAL statement_timeout = '30min'", { transaction });
        // Addresses as the sync stores them (participants are computed from them), own reads for 90 %, 2 % assigned.
        await sequelize.query(
          `UPDATE emails SET addresses = jsonb_build_object('from', jsonb_build_array(jsonb_build_object('email', "from", 'name', NULL)),
                                                         'to', jsonb_build_array(jsonb_build_object('email', "to", 'name', NULL)), 'cc', '[]'::jsonb)`,
          { transaction },
        );
        await sequelize.query(`INSERT INTO email_reads (user_id, email_id) SELECT $1, id FROM emails WHERE NOT outbound AND random() < 0.9`, { bind: [team.id], transaction });
        await sequelize.query(`UPDATE email_threads SET assignee_id = $1 WHERE random() < 0.02`, { bind: [team.id], transaction });
      }),
    );
    const thread = await fiftyEmailThread(ctx, seeded[0]);
    await maintain(ctx, 'VACUUM ANALYZE emails, email_threads, email_reads, email_search, email_account_members');
    console.log(
      `database: ${await scalar(ctx, 'SELECT count(*) FROM emails')} emails, ${await scalar(ctx, 'SELECT count(*) FROM email_threads')} conversations, ` +
        `${await scalar(ctx, 'SELECT count(*) FROM email_reads')} own reads; email_threads ${await scalar(ctx, "SELECT pg_size_pretty(pg_total_relation_size('email_threads'))")}, ` +
        `email_reads ${await scalar(ctx, "SELECT pg_size_pretty(pg_total_relation_size('email_reads'))")}; seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );

    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const token = (await ctx.services.sessions.create(team, { rememberMe: false }, { actor: 'bench' })).accessToken;
    const scenarios: Scenario[] = [
      scenario('conversations (open, newest first)', '/api/conversations', token),
      scenario('conversations?assignee=me', '/api/conversations?assignee=me', token),
      scenario('conversations?unread=true', '/api/conversations?unread=true', token),
      scenario('conversations?search=objednávka 1234', `/api/conversations?search=${encodeURIComponent('objednávka 1234')}`, token),
      scenario('conversations, one mailbox, status=all', `/api/conversations?emailAccountId=${seeded[1].account.id}&status=all`, token),
    ];
    for (const s of scenarios) await measure(base, agent, s, 20, false);
    for (const s of scenarios) await measure(base, agent, s, ITERATIONS, true);
    console.log(`\nLatency through HTTP (${(ACCOUNTS * EMAILS).toLocaleString('en')} emails, ${ACCOUNTS} mailboxes, one team member)`);
    report(scenarios);

    const read = await markReadCost(ctx, base, token, team.id, thread);
    console.log(`\nPOST /api/conversations/{id}/read, a thread of 50 emails unread for the caller: p50 ${read.p50.toFixed(2)} ms, p99 ${read.p99.toFixed(2)} ms (target < 50)`);
    agent.destroy();

    const writes = await writeCost(ctx, seeded[2]);
    console.log('\nWrite cost of a sync page (200 new emails), thread functions of migration 0028 ("before") against 0033, alternating');
    console.log(`  before p50 ${writes.before.p50.toFixed(2)} ms, after p50 ${writes.after.p50.toFixed(2)} ms: ratio ${(writes.after.p50 / writes.before.p50).toFixed(2)}`);
  } finally {
    server.close();
    await db.close({ keep: !!process.env.BENCH_KEEP });
  }
}

/** A thread of 50 inbound emails in the first mailbox; answers its conversation id. */
async function fiftyEmailThread(ctx: AppContext, m: SeededMailbox): Promise<string> {
  const sequelize = ctx.db.sequelize;
  await sequelize.query(
    `INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, message_id, thread_id, "from", "to", subject, body, is_read, date, outbound)
     SELECT e.user_id, e.email_account_id, e.contact_id, 'L' || g, format('<long%s@bench.test>', g), 'LONG', e."from", e."to", 'Dlhé vlákno', 'text', false,
            now() - g * interval '1 minute', false
       FROM (SELECT * FROM emails WHERE email_account_id = $1 AND NOT outbound LIMIT 1) e, generate_series(1, 50) g`,
    { bind: [m.account.id] },
  );
  const [row] = await sequelize.query<{ id: string }>(`SELECT id FROM email_threads WHERE email_account_id = $1 AND thread_id = 'LONG'`, {
    bind: [m.account.id],
    type: QueryTypes.SELECT,
  });
  return row.id;
}

async function markReadCost(ctx: AppContext, base: string, token: string, userId: string, conversationId: string) {
  const samples: number[] = [];
  for (let i = 0; i < 40; i++) {
    await ctx.db.sequelize.query(
      `DELETE FROM email_reads r USING email_threads t JOIN emails e ON e.email_account_id = t.email_account_id AND e.thread_id = t.thread_id
        WHERE t.id = $1 AND r.email_id = e.id AND r.user_id = $2`,
      { bind: [conversationId, userId] },
    );
    const t0 = process.hrtime.bigint();
    const res = await fetch(`${base}/api/conversations/${conversationId}/read`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`read: HTTP ${res.status}`);
    if (i >= 5) samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

/** The sync's upsert of a page of new mail, with the thread functions of 0028 and of 0033 in turn. */
async function writeCost(ctx: AppContext, m: SeededMailbox) {
  const sequelize = ctx.db.sequelize;
  const path = `"${await scalar(ctx, 'SELECT current_schema()')}", pg_temp`;
  const current = await sequelize.query<{ def: string }>(
    `SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p WHERE p.proname IN ('crm_email_threads_add', 'crm_email_threads_refresh')`,
    { type: QueryTypes.SELECT },
  );
  const install = async (newer: boolean) => {
    if (newer) for (const f of current) await sequelize.query(f.def);
    else await sequelize.query(threadFunctions0028(path));
  };
  const store = new MailStoreRepository(new Sql(sequelize));
  const account = { id: m.account.id, userId: m.user.id };
  const contacts = await sequelize.query<{ id: string; email: string }>('SELECT id, email FROM contacts WHERE email_account_id = $1 LIMIT 50', {
    bind: [m.account.id],
    type: QueryTypes.SELECT,
  });
  const page = (): EmailRow[] =>
    Array.from({ length: 200 }, (_, i) => {
      const c = contacts[i % contacts.length];
      const id = randomBytes(8).toString('hex');
      const outbound = i % 3 === 0;
      return {
        contactId: c.id,
        contactIds: [c.id],
        mapped: {
          jmapId: `W${id}`,
          included: true,
          messageId: `${id}@bench.test`,
          threadId: i % 2 === 0 ? `T${i * 7}` : `TW${id}`,
          inReplyTo: null,
          from: outbound ? m.account.email : c.email,
          to: outbound ? c.email : m.account.email,
          subject: `Zápis ${id}`,
          body: 'Dobrý deň, posielam podklady.',
          isRead: false,
          date: new Date(),
          outbound,
          participants: [c.email],
          correspondents: [{ email: c.email, name: null }],
          hasAttachments: false,
          addresses: { from: [], to: [], cc: [], replyTo: [] },
        },
      };
    });
  const samples = { before: [] as number[], after: [] as number[] };
  for (let round = 0; round < WRITE_ROUNDS; round++) {
    for (const newer of [false, true]) {
      await install(newer);
      const rows = page();
      const t0 = process.hrtime.bigint();
      await sequelize.transaction(async (tx) => {
        await store.upsertEmails(account, rows, tx);
      });
      (newer ? samples.after : samples.before).push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  await install(true);
  return { before: { p50: percentile(samples.before, 50) }, after: { p50: percentile(samples.after, 50) } };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
