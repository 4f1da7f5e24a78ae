/**
 * People on a large installation (issue 46): 100,000 people over 3 mailboxes (a user owning one and
 * reading the two others through shares), each person a contact in one, two or all three mailboxes, at
 * 2,000 company domains, 90% with mail. The contacts are inserted with the triggers of migration 0050 on
 * (their cost is printed), then the pages of issue 46 through the whole HTTP stack, alternated request by
 * request with the contact list and search as the baseline (the machine may be shared: the ratio to the
 * baseline of the same rounds is the figure that travels, not the milliseconds alone).
 *
 *   node --import=tsx/esm bench/people-bench.ts
 *   BENCH_PEOPLE=100000 BENCH_ROUNDS=200 node --import=tsx/esm bench/people-bench.ts
 */
import http from 'node:http';
import os from 'node:os';
import { createApp } from '../src/app/http-app.js';
import { withoutQueryTimeout } from '../src/db/connection-settings.js';
import { personWalkQuery } from '../src/people/person-query.js';
import { maintain, openBenchDatabase } from './bench-database.js';
import { explain, measure, percentile, scalar, scenario, type Scenario } from './bench-http.js';
import { onboardedMember } from './contacts-seed.js';

const PEOPLE = Number(process.env.BENCH_PEOPLE ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const WARMUP = 20;

const FIRST = ['Ján', 'Peter', 'Mária', 'Zuzana', 'Ľubomír', 'Katarína', 'Jozef', 'Eva', 'Michal', 'Anna', 'Tomáš', 'Lucia', 'Martin', 'Jana', 'Štefan', 'Ivana'];
const LAST = [
  'Novák',
  'Kováč',
  'Horváth',
  'Šebo',
  'Varga',
  'Tóth',
  'Nagy',
  'Baláž',
  'Molnár',
  'Szabó',
  'Lukáč',
  'Kollár',
  'Mészáros',
  'Oravec',
  'Polák',
  'Hudák',
  'Ďurica',
  'Šimko',
  'Čech',
  'Beňo',
];

/** Constant names as an SQL array literal (no quote in them). */
const sqlArray = (names: readonly string[]) => `ARRAY[${names.map((n) => `'${n}'`).join(', ')}]`;

async function main(): Promise<void> {
  const db = await openBenchDatabase('people', { BCRYPT_ROUNDS: '4' });
  const ctx = db.ctx;
  const { sequelize } = ctx.db;
  const server = http.createServer(createApp(ctx));
  try {
    const owner = await onboardedMember(ctx, 'people');
    const reader = await onboardedMember(ctx, 'reader');
    const accounts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const [rows] = await sequelize.query(
        `INSERT INTO email_accounts (user_id, email, email_password, jmap_account_id, is_primary) VALUES ($1, $2, 'v1:bench', $2, $3) RETURNING id`,
        { bind: [i === 0 ? reader.id : owner.id, `schranka${i}@nasa-firma.sk`, i < 2] },
      );
      accounts.push((rows as Array<{ id: string }>)[0].id);
    }
    // The reader owns mailbox 0 and reads 1 and 2 through shares (the owner row of 0 comes with the account).
    for (const account of accounts.slice(1)) {
      await ctx.services.emailAccountSharing.share({ kind: 'admin' }, account, { userId: reader.id, role: 'editor', canRead: true, canSend: false }, { actor: 'bench' });
    }
    const t0 = Date.now();
    await withoutQueryTimeout(() =>
      sequelize.transaction(async (transaction) => {
        // Statements over 100,000 rows outlast the service's statement timeout.
        await sequelize.query('SET LOCAL statement_timeout = 0', { transaction });
        await sequelize.query(`INSERT INTO companies (domain) SELECT 'firma' || d || '.sk' FROM generate_series(0, 1999) d ON CONFLICT DO NOTHING`, { transaction });
        // Person i is a contact of mailbox 0 when i % 10 < 6, of 1 when i % 10 >= 4, of 2 when i % 10 >= 9 (60/60/10%: ~1.3 contacts each).
        for (const [index, account] of accounts.entries()) {
          const member = index === 0 ? 'i % 10 < 6' : index === 1 ? 'i % 10 >= 4' : 'i % 10 >= 9';
          await sequelize.query(
            `INSERT INTO contacts (user_id, email_account_id, email, name, last_email_at, company_id)
           SELECT a.user_id, a.id, 'osoba' || i || '@firma' || (i % 2000) || '.sk',
                  (${sqlArray(FIRST)})[1 + i % 16] || ' ' || (${sqlArray(LAST)})[1 + (i / 16) % 20] || ' ' || i,
                  CASE WHEN i % 10 = 3 THEN NULL ELSE now() - make_interval(mins => (i * 7919 + ${index} * 104729) % 525600) END,
                  (SELECT co.id FROM companies co WHERE co.domain = 'firma' || (i % 2000) || '.sk')
             FROM generate_series(0, $people - 1) i, email_accounts a WHERE a.id = $account AND ${member}`,
            { bind: { people: PEOPLE, account }, transaction },
          );
        }
        // Staff give a tenth of the people a name, tags and notes.
        await sequelize.query(
          `UPDATE people p SET name = 'Zákazník ' || pe.email, tags = ARRAY['zákazník', 'Žilina'], notes = 'Volať po 10:00'
           FROM person_emails pe WHERE pe.person_id = p.id AND pe.email LIKE 'osoba%7@%'`,
          { transaction },
        );
      }),
    );
    const contacts = await scalar(ctx, 'SELECT count(*) FROM contacts');
    console.log(
      `seeded ${await scalar(ctx, 'SELECT count(*) FROM people')} people, ${contacts} contacts over 3 mailboxes in ${((Date.now() - t0) / 1000).toFixed(1)} s (triggers on)`,
    );
    await maintain(ctx, 'VACUUM ANALYZE contacts, people, person_emails, companies, email_accounts, email_account_members');
    const companyId = await scalar(ctx, `SELECT id FROM companies WHERE domain = 'firma17.sk'`);

    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const token = (await ctx.services.sessions.create(reader, { rememberMe: false }, { actor: 'bench' })).accessToken;
    const pairs: Array<[Scenario, Scenario]> = [
      [scenario('people list', '/api/people', token), scenario('contact list (baseline)', '/api/contacts', token)],
      [scenario('people list, page 20', '/api/people?page=20', token), scenario('contact list, page 20 (baseline)', '/api/contacts?page=20', token)],
      [
        scenario('people search "polak 4711"', '/api/people?search=polak%204711', token),
        scenario('contact search "polak 4711" (baseline)', '/api/contacts?search=polak%204711', token),
      ],
      [scenario('people search "kovac" (5% match)', '/api/people?search=kovac', token), scenario('contact search "kovac" (baseline)', '/api/contacts?search=kovac', token)],
      [scenario('people search "firma17"', '/api/people?search=firma17.sk', token), scenario('contact search "firma17" (baseline)', '/api/contacts?search=firma17.sk', token)],
      [scenario(`people of a company`, `/api/people?companyId=${companyId}`, token), scenario('contacts of a company (baseline)', `/api/contacts?companyId=${companyId}`, token)],
      [scenario('people, tag=zilina', '/api/people?tag=zilina', token), scenario('contact list (baseline)', '/api/contacts', token)],
    ];
    const all = pairs.flat();
    for (const s of all) await measure(base, agent, s, WARMUP, false);
    // Alternated: every round asks each scenario once, so load that comes and goes touches both sides alike.
    for (let round = 0; round < ROUNDS; round++) for (const s of all) await measure(base, agent, s, 1, true);
    agent.destroy();
    const load = os.loadavg();
    console.log(`\n${PEOPLE.toLocaleString('en')} people, ${contacts} contacts, 3 mailboxes, ${ROUNDS} alternated rounds; load average ${load.map((l) => l.toFixed(2)).join(' ')}`);
    const width = Math.max(...all.map((s) => s.name.length));
    console.log(`${'scenario'.padEnd(width)}  ${'p50 ms'.padStart(7)}  ${'p95 ms'.padStart(7)}  ${'÷ baseline p50'.padStart(14)}`);
    for (const [people, baseline] of pairs) {
      for (const s of [people, baseline]) {
        const ratio = s === people ? (percentile(people.samples, 50) / percentile(baseline.samples, 50)).toFixed(2) : '';
        console.log(`${s.name.padEnd(width)}  ${percentile(s.samples, 50).toFixed(2).padStart(7)}  ${percentile(s.samples, 95).toFixed(2).padStart(7)}  ${ratio.padStart(14)}`);
      }
    }
    console.log(
      JSON.stringify({ people: PEOPLE, listP50Ms: +percentile(pairs[0][0].samples, 50).toFixed(2), searchP50Ms: +percentile(pairs[2][0].samples, 50).toFixed(2), load: load[0] }),
    );
    await explain(ctx, 'people walk (GET /api/people)', {
      pageSql: personWalkQuery({ includeColleagues: false }),
      countSql: 'SELECT 1',
      bind: { userId: reader.id, rows: 102 },
    });
  } finally {
    server.close();
    await db.close({ keep: !!process.env.BENCH_KEEP });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
