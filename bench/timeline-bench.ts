/**
 * The timeline of a company with 10,000 emails (issue 46, docs/adr/0141-timelines.md): three mailboxes
 * of background mail (bench/contacts-seed.ts), and a company whose BENCH_COMPANY_CONTACTS addresses
 * wrote BENCH_COMPANY_EMAILS messages to them, a third of them held by two mailboxes (the same
 * Message-ID), with tasks and follow-ups. The caller owns one mailbox and edits the two others.
 *
 * Through the whole HTTP stack, in alternating rounds (one request of each scenario per round, so a
 * load that changes during the run hits all of them alike): the company's detail (the baseline: one
 * cheap read on the same data), the timeline's first page, a deep page by cursor and the same depth by
 * page number, and the busiest person's timeline. Prints p50/p99 and each one's ratio to the baseline,
 * with the machine's load.
 *
 *   node --import=tsx/esm bench/timeline-bench.ts
 *   BENCH_BACKGROUND_EMAILS=30000 BENCH_COMPANY_EMAILS=10000 BENCH_COMPANY_CONTACTS=60 BENCH_ROUNDS=60 BENCH_DEEP_PAGE=100
 */
import http from 'node:http';
import os from 'node:os';
import pg from 'pg';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../src/app/context.js';
import { createApp } from '../src/app/http-app.js';
import { withoutQueryTimeout } from '../src/db/connection-settings.js';
import { openBenchDatabase } from './bench-database.js';
import { measure, percentile, scalar, scenario, type Scenario } from './bench-http.js';
import { seedMailbox, type SeededMailbox } from './contacts-seed.js';

const BACKGROUND = Number(process.env.BENCH_BACKGROUND_EMAILS ?? 30_000);
const COMPANY_EMAILS = Number(process.env.BENCH_COMPANY_EMAILS ?? 10_000);
const COMPANY_CONTACTS = Number(process.env.BENCH_COMPANY_CONTACTS ?? 60);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60);
const DEEP_PAGE = Number(process.env.BENCH_DEEP_PAGE ?? 100);
const LIMIT = 50;

async function main(): Promise<void> {
  const db = await openBenchDatabase('timeline', { BCRYPT_ROUNDS: '4' });
  const ctx = db.ctx;
  const server = http.createServer(createApp(ctx));
  try {
    const load = () =>
      os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
    console.log(`PostgreSQL: ${(await scalar(ctx, 'SELECT version()')).split(',')[0]}; load ${load()} on ${os.cpus().length} CPUs (a shared machine)`);
    const started = Date.now();
    const boxes: SeededMailbox[] = [];
    for (let i = 0; i < 3; i++) boxes.push(await seedMailbox(ctx, `timeline${i}`, { contacts: 500, emails: BACKGROUND }));
    const caller = boxes[0].user;
    for (const box of boxes.slice(1)) {
      await ctx.services.emailAccountSharing.share({ kind: 'admin' }, box.account.id, { userId: caller.id, role: 'editor', canRead: true, canSend: false }, { actor: 'bench' });
    }
    const { companyId, busiestPerson } = await seedCompany(ctx, boxes, caller.id);
    const maintenance = new pg.Client({ connectionString: db.url });
    await maintenance.connect();
    try {
      await maintenance.query('VACUUM ANALYZE emails, email_contacts, contacts, people, person_emails, companies, tasks, follow_ups, email_threads');
    } finally {
      await maintenance.end();
    }
    console.log(
      `database: ${await scalar(ctx, 'SELECT count(*) FROM emails')} emails; the company: ${await scalar(
        ctx,
        `SELECT count(DISTINCT l.email_id) FROM contacts c JOIN email_contacts l ON l.contact_id = c.id WHERE c.company_id = '${companyId}'`,
      )} email rows (${await scalar(ctx, `SELECT count(DISTINCT e.message_id) FROM contacts c JOIN email_contacts l ON l.contact_id = c.id JOIN emails e ON e.id = l.email_id WHERE c.company_id = '${companyId}'`)} messages), ` +
        `${await scalar(ctx, 'SELECT count(*) FROM tasks')} tasks; seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );

    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const token = (await ctx.services.sessions.create(caller, { rememberMe: false }, { actor: 'bench' })).accessToken;
    const timeline = `/api/companies/${companyId}/timeline`;
    const deepCursor = await cursorAt(base, token, timeline, DEEP_PAGE);
    const scenarios: Scenario[] = [
      scenario('baseline: GET /api/companies/{id}', `/api/companies/${companyId}`, token),
      scenario('company timeline, first page', `${timeline}?limit=${LIMIT}`, token),
      scenario(`company timeline, page ${DEEP_PAGE} by cursor`, `${timeline}?limit=${LIMIT}&cursor=${deepCursor}`, token),
      scenario(`company timeline, page ${DEEP_PAGE} by page number`, `${timeline}?limit=${LIMIT}&page=${DEEP_PAGE}`, token),
      scenario('busiest person timeline, first page', `/api/people/${busiestPerson}/timeline?limit=${LIMIT}`, token),
    ];
    for (const s of scenarios) await measure(base, agent, s, 5, false);
    // Alternating rounds: one request of each scenario per round.
    for (let round = 0; round < ROUNDS; round++) for (const s of scenarios) await measure(base, agent, s, 1, true);
    agent.destroy();
    const baseline = percentile(scenarios[0].samples, 50);
    console.log(`\nLatency through HTTP, ${ROUNDS} alternating rounds, limit ${LIMIT}; load now ${load()}`);
    const width = Math.max(...scenarios.map((s) => s.name.length));
    console.log(`${'scenario'.padEnd(width)}  ${'p50 ms'.padStart(7)}  ${'p99 ms'.padStart(7)}  ${'x baseline'.padStart(10)}`);
    for (const s of scenarios) {
      const p50 = percentile(s.samples, 50);
      console.log(`${s.name.padEnd(width)}  ${p50.toFixed(2).padStart(7)}  ${percentile(s.samples, 99).toFixed(2).padStart(7)}  ${(p50 / baseline).toFixed(2).padStart(10)}`);
    }
    console.log(`\ntarget: company timeline p50 < 50 ms (first page ${percentile(scenarios[1].samples, 50).toFixed(2)} ms)`);
  } finally {
    server.close();
    await db.close({ keep: !!process.env.BENCH_KEEP });
  }
}

/**
 * The company: its domain's contacts in all three mailboxes, COMPANY_EMAILS email rows among them (one
 * message in three also in a second mailbox: a colleague in copy), 200 tasks on it and its people, a
 * follow-up per contact of the caller's own mailbox.
 */
async function seedCompany(ctx: AppContext, boxes: SeededMailbox[], callerId: string): Promise<{ companyId: string; busiestPerson: string }> {
  const sequelize = ctx.db.sequelize;
  const domain = 'acme-timeline.sk';
  const [company] = await sequelize.query<{ id: string }>('INSERT INTO companies (domain, name) VALUES ($1, $2) RETURNING id', {
    bind: [domain, 'ACME Timeline s.r.o.'],
    type: QueryTypes.SELECT,
  });
  await withoutQueryTimeout(() =>
    sequelize.transaction(async (transaction) => {
      await sequelize.query("SET LOCAL statement_timeout = '15min'", { transaction });
      for (const box of boxes) {
        await sequelize.query(
          `INSERT INTO contacts (user_id, email_account_id, email, name, company_id)
           SELECT $userId, $accountId, format('osoba%s@${domain}', g), format('Osoba %s', g), $companyId FROM generate_series(0, $n::int - 1) g`,
          { bind: { userId: box.user.id, accountId: box.account.id, companyId: company.id, n: COMPANY_CONTACTS }, transaction },
        );
      }
      // Message g goes to mailbox g % 3 from address (skewed) idx; every third also to the next mailbox.
      const rows = Math.round(COMPANY_EMAILS / (1 + 1 / 3));
      const accounts = boxes.map((b) => b.account.id);
      const users = boxes.map((b) => b.user.id);
      const addresses = boxes.map((b) => b.account.email);
      await sequelize.query(
        `WITH msg AS MATERIALIZED (
           SELECT g, least(floor($n::int * power(random(), 2))::int, $n::int - 1) AS idx, now() - g * interval '37 minutes' AS at FROM generate_series(0, $rows::int - 1) g OFFSET 0),
         copies AS (SELECT g, idx, at, g % 3 AS box FROM msg UNION ALL SELECT g, idx, at + interval '2 seconds', (g + 1) % 3 FROM msg WHERE g % 3 = 0)
         INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, message_id, thread_id, "from", "to", subject, body, is_read, date, outbound)
         SELECT ($users::uuid[])[box + 1], ($accounts::uuid[])[box + 1], c.id, 'A' || g || '-' || box, format('<acme%s@${domain}>', g), 'AT' || (g / 3),
                c.email, ($addresses::text[])[box + 1], format('Zákazka %s', g), repeat('Dobrý deň, posielam podklady. ', 10), true, at, false
           FROM copies JOIN contacts c ON c.email_account_id = ($accounts::uuid[])[box + 1] AND c.email = format('osoba%s@${domain}', idx)`,
        { bind: { n: COMPANY_CONTACTS, rows, accounts, users, addresses }, transaction },
      );
      await sequelize.query(
        `INSERT INTO email_contacts (email_id, contact_id) SELECT e.id, e.contact_id FROM emails e JOIN contacts c ON c.id = e.contact_id WHERE c.company_id = $companyId`,
        { bind: { companyId: company.id }, transaction },
      );
      await sequelize.query(
        `UPDATE contacts c SET last_email_at = m.latest FROM (SELECT l.contact_id, max(l.email_date) AS latest FROM email_contacts l GROUP BY 1) m
          WHERE c.id = m.contact_id AND c.company_id = $companyId`,
        { bind: { companyId: company.id }, transaction },
      );
      await sequelize.query(`UPDATE people SET company_id = $companyId WHERE id IN (SELECT person_id FROM person_emails WHERE email LIKE '%@${domain}')`, {
        bind: { companyId: company.id },
        transaction,
      });
      await sequelize.query(
        `INSERT INTO tasks (title, due_at, assignee_id, created_by, company_id, person_id)
         SELECT format('Úloha %s', g), now() - g * interval '5 hours', $callerId, $callerId,
                CASE WHEN g % 2 = 0 THEN $companyId::uuid END,
                CASE WHEN g % 2 = 1 THEN (SELECT person_id FROM person_emails WHERE email = format('osoba%s@${domain}', g % $n::int)) END
           FROM generate_series(0, 199) g`,
        { bind: { callerId, companyId: company.id, n: COMPANY_CONTACTS }, transaction },
      );
      await sequelize.query(
        `INSERT INTO follow_ups (user_id, contact_id, due_at) SELECT $callerId, c.id, now() - random() * interval '300 days' FROM contacts c
          WHERE c.company_id = $companyId AND c.email_account_id = $accountId`,
        { bind: { callerId, companyId: company.id, accountId: boxes[0].account.id }, transaction },
      );
    }),
  );
  const [busiest] = await sequelize.query<{ id: string }>(
    `SELECT pe.person_id AS id FROM person_emails pe JOIN contacts c ON c.email = pe.email JOIN email_contacts l ON l.contact_id = c.id
      WHERE pe.email LIKE '%@${domain}' GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
    { type: QueryTypes.SELECT },
  );
  return { companyId: company.id, busiestPerson: busiest.id };
}

/** The cursor of the page before `page`, walked page by page as a client scrolls. */
async function cursorAt(base: string, token: string, path: string, page: number): Promise<string> {
  let cursor = '';
  for (let i = 1; i < page; i++) {
    const res = await fetch(`${base}${path}?limit=${LIMIT}${cursor ? `&cursor=${cursor}` : ''}`, { headers: { Authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { data: { pagination: { nextCursor: string | null } } };
    if (!body.data.pagination.nextCursor) throw new Error(`the timeline ends before page ${page}`);
    cursor = body.data.pagination.nextCursor;
  }
  return cursor;
}

await main();
