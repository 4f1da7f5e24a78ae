/**
 * The timelines' key statement (issue 46, docs/adr/0141-timelines.md), the per-contact candidates
 * against the baseline they replaced (bench/timeline-baseline.ts): three mailboxes of background mail
 * (bench/contacts-seed.ts), and a company whose BENCH_COMPANY_CONTACTS addresses (a contact in each
 * mailbox: three times as many contacts) wrote BENCH_COMPANY_EMAILS messages, skewed so that the first
 * address holds much of the mail (BENCH_SKEW), a third of them held by two mailboxes (the same
 * Message-ID), with tasks and follow-ups. The caller owns one mailbox and edits the two others.
 *
 * Four scenarios: the company's first page and its page BENCH_DEEP_PAGE reached by cursor, and the same
 * two of the person who holds the most mail (their last page when their timeline is shorter). Each is
 * measured as TimelineRepository.keys (the page's positions, the only part that changed: the items are
 * then read by id alike), old and new, in alternating rounds (each round runs every scenario both ways,
 * the order flipped every round, so a load that changes during the run hits both alike). Before
 * measuring, both must answer the same positions.
 * Prints p50/p99 of each, the statements a page took (widening), new/old, and the machine's load.
 *
 *   node --import=tsx/esm bench/timeline-bench.ts
 *   BENCH_BACKGROUND_EMAILS=30000 BENCH_COMPANY_EMAILS=10000 BENCH_COMPANY_CONTACTS=400 BENCH_ROUNDS=40 BENCH_DEEP_PAGE=100
 *   small, to see it work: BENCH_BACKGROUND_EMAILS=500 BENCH_COMPANY_EMAILS=600 BENCH_COMPANY_CONTACTS=40 BENCH_ROUNDS=3 BENCH_DEEP_PAGE=4
 */
import http from 'node:http';
import os from 'node:os';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../src/app/context.js';
import { createApp } from '../src/app/http-app.js';
import { withoutQueryTimeout } from '../src/db/connection-settings.js';
import { Sql, type Bind } from '../src/db/sql.js';
import { TYPE_RANK, type TimelinePosition } from '../src/timelines/timeline-cursor.js';
import { TIMELINE_TASK_LINKS, type TimelineKinds, type TimelineSubject } from '../src/timelines/timeline-query.js';
import { TimelineRepository } from '../src/timelines/timeline-repository.js';
import { TaskRepository } from '../src/tasks/task-repository.js';
import { maintain, openBenchDatabase } from './bench-database.js';
import { measure, percentile, report, scalar, scenario } from './bench-http.js';
import { seedMailbox, type SeededMailbox } from './contacts-seed.js';
import { oldTimelineKeys } from './timeline-baseline.js';

const BACKGROUND = Number(process.env.BENCH_BACKGROUND_EMAILS ?? 30_000);
const COMPANY_EMAILS = Number(process.env.BENCH_COMPANY_EMAILS ?? 10_000);
const COMPANY_CONTACTS = Number(process.env.BENCH_COMPANY_CONTACTS ?? 400);
const SKEW = Number(process.env.BENCH_SKEW ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const DEEP_PAGE = Number(process.env.BENCH_DEEP_PAGE ?? 100);
const LIMIT = 50;
const KINDS: TimelineKinds = { emails: true, tasks: true, followUps: true };

/** Sql that counts the statements it runs (how often a page widened). */
class CountingSql extends Sql {
  statements = 0;
  override select<T extends object>(text: string, bind: Bind = {}): Promise<T[]> {
    this.statements++;
    return super.select<T>(text, bind);
  }
}

interface Case {
  name: string;
  of: { subject: TimelineSubject; subjectId: string; kinds: TimelineKinds };
  position?: TimelinePosition;
  ms: { old: number[]; new: number[] };
  statements: { old: number; new: number };
}

async function main(): Promise<void> {
  const db = await openBenchDatabase('timeline', { BCRYPT_ROUNDS: '4' });
  const ctx = db.ctx;
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
    await maintain(ctx, 'VACUUM ANALYZE emails, email_contacts, contacts, people, person_emails, companies, tasks, follow_ups, email_threads');
    console.log(
      `database: ${await scalar(ctx, 'SELECT count(*) FROM emails')} emails; the company: ${await scalar(
        ctx,
        `SELECT count(DISTINCT l.email_id) FROM contacts c JOIN email_contacts l ON l.contact_id = c.id WHERE c.company_id = '${companyId}'`,
      )} email rows (${await scalar(ctx, `SELECT count(DISTINCT e.message_id) FROM contacts c JOIN email_contacts l ON l.contact_id = c.id JOIN emails e ON e.id = l.email_id WHERE c.company_id = '${companyId}'`)} messages), ` +
        `${await scalar(ctx, 'SELECT count(*) FROM tasks')} tasks; seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );

    const sql = new CountingSql(ctx.db.sequelize);
    const repository = new TimelineRepository(sql);
    const need = LIMIT + 1;
    const company = { subject: 'company' as const, subjectId: companyId, kinds: KINDS };
    const person = { subject: 'person' as const, subjectId: busiestPerson, kinds: KINDS };
    const fresh = (name: string, of: Case['of'], position?: TimelinePosition): Case => ({ name, of, position, ms: { old: [], new: [] }, statements: { old: 0, new: 0 } });
    const [companyDeep, personDeep] = [await positionAt(repository, caller.id, company, DEEP_PAGE), await positionAt(repository, caller.id, person, DEEP_PAGE)];
    const cases: Case[] = [
      fresh('company, first page', company),
      fresh(`company, page ${companyDeep.page} by cursor`, company, companyDeep.position),
      fresh('busiest person, first page', person),
      fresh(`busiest person, page ${personDeep.page} by cursor`, person, personDeep.position),
    ];
    const run = async (c: Case, which: 'old' | 'new', record: boolean): Promise<TimelinePosition[]> => {
      const before = sql.statements;
      const t0 = process.hrtime.bigint();
      const keys = which === 'new' ? await repository.keys(caller.id, c.of, need, c.position) : (await oldTimelineKeys(sql, caller.id, c.of, need, c.position)).keys;
      if (record) {
        c.ms[which].push(Number(process.hrtime.bigint() - t0) / 1e6);
        c.statements[which] += sql.statements - before;
      }
      return keys;
    };
    for (const c of cases) {
      // The same page both ways, or the figures compare nothing.
      const [a, b] = [await run(c, 'old', false), await run(c, 'new', false)];
      if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${c.name}: the old and the new statement answer different pages`);
      if (a.length < need) console.log(`note: ${c.name} is the timeline's last page (${a.length} items)`);
      for (let i = 0; i < 2; i++) (await run(c, 'old', false), await run(c, 'new', false));
    }
    for (let round = 0; round < ROUNDS; round++) {
      const order: Array<'old' | 'new'> = round % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
      for (const c of cases) for (const which of order) await run(c, which, true);
    }
    console.log(`\nTimelineRepository.keys, ${ROUNDS} alternating rounds, limit ${LIMIT} (${need} positions); load now ${load()} (a shared machine)`);
    const width = Math.max(...cases.map((c) => c.name.length));
    const head = ['old p50', 'old p99', 'new p50', 'new p99', 'new/old', 'stmts old', 'stmts new'];
    console.log(`${'scenario'.padEnd(width)}  ${head.map((h) => h.padStart(9)).join('  ')}`);
    for (const c of cases) {
      const [o50, n50] = [percentile(c.ms.old, 50), percentile(c.ms.new, 50)];
      const cells = [o50, percentile(c.ms.old, 99), n50, percentile(c.ms.new, 99), n50 / o50].map((v) => v.toFixed(2));
      cells.push((c.statements.old / ROUNDS).toFixed(1), (c.statements.new / ROUNDS).toFixed(1));
      console.log(`${c.name.padEnd(width)}  ${cells.map((v) => v.padStart(9)).join('  ')}`);
    }
    console.log('ms per page; stmts: statements per page (a widened page takes more than one)');
    const firstPage = await repository.keys(caller.id, company, need);
    await measureTaskItems(
      new TaskRepository(sql),
      caller.id,
      firstPage.filter((k) => k.rank === TYPE_RANK.task).map((k) => k.id),
    );
    await measureRequests(ctx, caller, companyId, busiestPerson);
  } finally {
    await db.close({ keep: !!process.env.BENCH_KEEP });
  }
}

/**
 * The task items of the company's first page (ADR 0173, amended): read with every link's rule planned
 * (TaskRepository.visible, as before) and with only the links a company timeline's tasks have
 * (visibleLinked), alternated; both must answer the same items first.
 */
async function measureTaskItems(tasks: TaskRepository, userId: string, ids: string[]): Promise<void> {
  const ways = { 'every link': () => tasks.visible(userId, ids), "the timeline's links": () => tasks.visibleLinked(userId, ids, TIMELINE_TASK_LINKS.company) };
  const [all, linked] = [await ways['every link'](), await ways["the timeline's links"]()];
  if (ids.length === 0 || JSON.stringify(all) !== JSON.stringify(linked)) throw new Error(`the task items differ (or the page has none: ${ids.length} ids)`);
  const ms: Record<keyof typeof ways, number[]> = { 'every link': [], "the timeline's links": [] };
  const names = Object.keys(ways) as Array<keyof typeof ways>;
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const t0 = process.hrtime.bigint();
      await ways[name]();
      ms[name].push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  console.log(`\nThe company's first page's ${ids.length} task items, ${ROUNDS} alternating rounds; load now ${os.loadavg()[0].toFixed(2)}`);
  for (const name of names) console.log(`  ${name.padEnd(22)} p50 ${percentile(ms[name], 50).toFixed(2)} ms  p99 ${percentile(ms[name], 99).toFixed(2)} ms`);
}

/**
 * The whole request (issue 46's figure: a company timeline of 10,000 emails, p50 < 50 ms): the keys, the
 * items read by id and the JSON, over HTTP with the caller's Bearer token, in rounds alternated with
 * the contact list's first page as the baseline of the same moment.
 */
async function measureRequests(ctx: AppContext, caller: SeededMailbox['user'], companyId: string, personId: string): Promise<void> {
  const server = http.createServer(createApp(ctx));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const token = (await ctx.services.sessions.create(caller, { rememberMe: false }, { actor: 'bench' })).accessToken;
    const scenarios = [
      scenario('GET company timeline, limit 50', `/api/companies/${companyId}/timeline?limit=50`, token),
      scenario('GET person timeline, limit 50', `/api/people/${personId}/timeline?limit=50`, token),
      scenario('GET /api/contacts (baseline)', '/api/contacts', token),
    ];
    for (const s of scenarios) await measure(base, agent, s, 3, false);
    for (let round = 0; round < ROUNDS; round++) for (const s of round % 2 === 0 ? scenarios : [...scenarios].reverse()) await measure(base, agent, s, 1, true);
    console.log(`\nThe whole request over HTTP, ${ROUNDS} alternating rounds; load now ${os.loadavg()[0].toFixed(2)}`);
    report(scenarios);
  } finally {
    agent.destroy();
    server.close();
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
      // Message g goes to mailbox g % 3 from address idx (skewed towards the first: power(random(), BENCH_SKEW)); every third also to the next mailbox.
      const rows = Math.round(COMPANY_EMAILS / (1 + 1 / 3));
      const accounts = boxes.map((b) => b.account.id);
      const users = boxes.map((b) => b.user.id);
      const addresses = boxes.map((b) => b.account.email);
      await sequelize.query(
        `WITH msg AS MATERIALIZED (
           SELECT g, least(floor($n::int * power(random(), $skew::float8))::int, $n::int - 1) AS idx, now() - g * interval '37 minutes' AS at FROM generate_series(0, $rows::int - 1) g OFFSET 0),
         copies AS (SELECT g, idx, at, g % 3 AS box FROM msg UNION ALL SELECT g, idx, at + interval '2 seconds', (g + 1) % 3 FROM msg WHERE g % 3 = 0)
         INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, message_id, thread_id, "from", "to", subject, body, is_read, date, outbound)
         SELECT ($users::uuid[])[box + 1], ($accounts::uuid[])[box + 1], c.id, 'A' || g || '-' || box, format('<acme%s@${domain}>', g), 'AT' || (g / 3),
                c.email, ($addresses::text[])[box + 1], format('Zákazka %s', g), repeat('Dobrý deň, posielam podklady. ', 10), true, at, false
           FROM copies JOIN contacts c ON c.email_account_id = ($accounts::uuid[])[box + 1] AND c.email = format('osoba%s@${domain}', idx)`,
        { bind: { n: COMPANY_CONTACTS, skew: SKEW, rows, accounts, users, addresses }, transaction },
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

/**
 * The position a client reaches after `page - 1` pages by cursor (the last position of the page before
 * `page`), or of the timeline's last page when it ends sooner: the busiest person holds about a
 * fifth of the company's mail, fewer pages than a deep page of the company. The page reached is named
 * in the scenario.
 */
async function positionAt(repository: TimelineRepository, userId: string, of: Case['of'], page: number): Promise<{ page: number; position?: TimelinePosition }> {
  let reached: { page: number; position?: TimelinePosition } = { page: 1 };
  for (let i = 1; i < page; i++) {
    const keys = await repository.keys(userId, of, LIMIT + 1, reached.position);
    if (keys.length <= LIMIT) {
      console.log(`note: the ${of.subject} timeline ends on page ${i}, before page ${page}: its deep scenario is that last page`);
      break;
    }
    reached = { page: i + 1, position: keys[LIMIT - 1] };
  }
  return reached;
}

await main();
