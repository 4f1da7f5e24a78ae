/**
 * Companies on a large installation: the mailboxes of bench/contacts-seed.ts (50 accounts; contacts at
 * 97 partner domains each), filed under their companies as migration 0027 files them, then the pages
 * of issue 38 through the whole HTTP stack: the company list (three sorts and a search), one company
 * and a company's contacts, for a user with one mailbox and for one with a second, shared mailbox.
 * Prints p50/p99 and the EXPLAIN ANALYZE plans of the list.
 *
 *   node --import=tsx/esm bench/companies-bench.ts
 *   BENCH_ACCOUNTS=50 BENCH_EMAILS=20000 BENCH_CONTACTS=500 BENCH_ITERATIONS=300   (the large-install data set)
 */
import http from 'node:http';
import os from 'node:os';
import { createApp } from '../src/app/http-app.js';
import { companyListQuery } from '../src/companies/company-query.js';
import { isFreeMailDomain } from '../src/companies/free-mail-domains.js';
import { maintain, openBenchDatabase } from './bench-database.js';
import { explain, measure, percentile, report, scalar, scenario, type Scenario } from './bench-http.js';
import { seedMailbox, shareMailbox, type SeededMailbox } from './contacts-seed.js';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 50);
const EMAILS = Number(process.env.BENCH_EMAILS ?? 20_000);
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 500);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 300);
const WARMUP = 50;

async function main(): Promise<void> {
  const db = await openBenchDatabase('companies', { BCRYPT_ROUNDS: '4' });
  const ctx = db.ctx;
  const { sequelize } = ctx.db;
  const server = http.createServer(createApp(ctx));
  try {
    const started = Date.now();
    const seeded: SeededMailbox[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      seeded.push(await seedMailbox(ctx, `co${i}`, { contacts: CONTACTS, emails: EMAILS }));
      if ((i + 1) % 10 === 0) console.log(`  seeded ${i + 1}/${ACCOUNTS} accounts in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    const m = seeded[Math.floor(seeded.length / 2)];
    const { members } = await shareMailbox(ctx, m, 1, { contacts: CONTACTS, emails: Math.min(EMAILS, 2_000) });
    // The backfill of migration 0027, as it runs on an upgrade.
    const t0 = Date.now();
    const [rows] = await sequelize.query('SELECT DISTINCT crm_mail_domain(email) AS domain FROM contacts');
    const domains = (rows as Array<{ domain: string }>).map((r) => r.domain).filter((d) => !isFreeMailDomain(d));
    await sequelize.query('INSERT INTO companies (domain) SELECT d FROM unnest($1::text[]) AS d ON CONFLICT DO NOTHING', { bind: [domains] });
    await sequelize.query('UPDATE contacts c SET company_id = co.id FROM companies co WHERE co.domain = crm_mail_domain(c.email)');
    console.log(`backfill: ${domains.length} companies, ${await scalar(ctx, 'SELECT count(*) FROM contacts')} contacts in ${Date.now() - t0} ms`);
    await maintain(ctx, 'VACUUM ANALYZE contacts, companies, email_accounts');
    const companyId = await scalar(ctx, `SELECT company_id FROM contacts WHERE email_account_id = '${m.account.id}' AND company_id IS NOT NULL LIMIT 1`);

    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const token = (await ctx.services.sessions.create(m.user, { rememberMe: false }, { actor: 'bench' })).accessToken;
    const sharedToken = (await ctx.services.sessions.create(members[0], { rememberMe: false }, { actor: 'bench' })).accessToken;
    const scenarios: Scenario[] = [
      scenario('company list (lastEmail)', '/api/companies', token),
      scenario('company list, sort=name', '/api/companies?sort=name', token),
      scenario('company list, sort=contactCount', '/api/companies?sort=contactCount', token),
      scenario('company list, search=partner4', '/api/companies?search=partner4', token),
      scenario('one company', `/api/companies/${companyId}`, token),
      scenario('contacts of a company', `/api/contacts?companyId=${companyId}`, token),
      scenario('company list, own + shared mailbox', '/api/companies', sharedToken),
      scenario('contact list (for comparison)', '/api/contacts', token),
    ];
    for (const s of scenarios) await measure(base, agent, s, WARMUP, false);
    for (const s of scenarios) await measure(base, agent, s, ITERATIONS, true);
    agent.destroy();
    console.log(`\n${ACCOUNTS} accounts, ${(ACCOUNTS * EMAILS).toLocaleString('en')} emails, ${CONTACTS} contacts per account; load ${os.loadavg()[0].toFixed(2)}`);
    report(scenarios);
    console.log(
      JSON.stringify({
        emails: ACCOUNTS * EMAILS,
        companyListP50Ms: +percentile(scenarios[0].samples, 50).toFixed(2),
        oneCompanyP50Ms: +percentile(scenarios[4].samples, 50).toFixed(2),
      }),
    );
    await explain(ctx, 'company list (GET /api/companies)', companyListQuery({ userId: m.user.id }, { sort: 'lastEmail' }, { page: 1, limit: 50 }));
  } finally {
    server.close();
    await db.close({ keep: !!process.env.BENCH_KEEP });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
