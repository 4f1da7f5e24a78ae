/**
 * Contact search (issue 34): p50 of one search page and its total, as ContactRepository runs them
 * (both queries at once), on a user's mailbox of 100,000 contacts in an installation of 200,000,
 * the query of migration 0025 (folded words, trigram index) side by side with the one before it
 * (one LIKE over the lower-cased name or address, no index), in the same run, interleaved.
 *
 *   node --import=tsx/esm bench/contact-search.ts                 # embedded PostgreSQL in a temp dir, removed afterwards
 *   BENCH_ITERATIONS=200 node --import=tsx/esm bench/contact-search.ts
 *   BENCH_DATABASE_URL=postgres://... node --import=tsx/esm bench/contact-search.ts
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../src/app/context.js';
import { contactListQuery } from '../src/contacts/contact-query.js';
import { escapeLike } from '../src/db/escape-like.js';
import type { Bind } from '../src/db/sql.js';
import { countWithAccess } from '../src/email-accounts/account-access.js';
import { accountsWith } from '../src/email-accounts/account-rights.js';
import { EmailAccount, type User } from '../src/models/index.js';
import { maintain, openBenchDatabase } from './bench-database.js';
import { percentile, scalar } from './bench-http.js';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const OWN_CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000);
const OTHER_USERS = 4;
const OTHER_CONTACTS = OWN_CONTACTS / 4;

const FIRST = ['Ján', 'Peter', 'Zuzana', 'Mária', 'Jozef', 'Anna', 'Michal', 'Eva', 'Lukáš', 'Katarína', 'Tomáš', 'Jana', 'Martin', 'Lucia', 'Marek', 'Veronika'];
const LAST = ['Kováč', 'Horváth', 'Varga', 'Tóth', 'Nagy', 'Baláž', 'Szabó', 'Molnár', 'Šťastná', 'Lukáč', 'Novák', 'Kollár', 'Németh', 'Oravec', 'Hudák', 'Polák'];

/** The query before migration 0025 (src/contacts/contact-query.ts at 0.1.x), for the side-by-side figures. */
function oldSearchQuery(userId: string, search: string) {
  const bind: Bind = { userId, limit: 50, offset: 0, window: 50, pattern: `%${escapeLike(search.toLowerCase())}%` };
  const conditions = ['c.email_account_id = m.email_account_id', '(c.email LIKE $pattern OR lower(c.name) LIKE $pattern)'];
  const order = (a: string) => `${a}.last_email_at DESC NULLS LAST, ${a}.id`;
  return {
    bind,
    pageSql: `SELECT c.* FROM (SELECT p.* FROM email_account_members m
                CROSS JOIN LATERAL (SELECT c.* FROM contacts c WHERE ${conditions.join(' AND ')} ORDER BY ${order('c')} LIMIT $window) p
               WHERE m.user_id = $userId ORDER BY ${order('p')} LIMIT $limit OFFSET $offset) c ORDER BY ${order('c')}`,
    countSql: countWithAccess(`SELECT 1 FROM contacts c WHERE c.email_account_id IN (${accountsWith('view')}) AND ${conditions[1]}`, {}, 'view'),
  };
}

async function seedUser(ctx: AppContext, label: string, contacts: number): Promise<User> {
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
  // In slices: one statement stays within the pool's statement timeout on a busy machine.
  for (let from = 0; from < contacts; from += 10_000) {
    await ctx.db.sequelize.query(
      `INSERT INTO contacts (user_id, email_account_id, email, name, last_email_at)
       SELECT $userId::uuid, $accountId::uuid,
              format('%s.%s%s@firma%s.sk', crm_fold(f), crm_fold(l), g, g % 500), f || ' ' || l, now() - g * interval '1 minute'
         FROM generate_series($from::int, $to::int - 1) g,
              LATERAL (SELECT ($first::text[])[1 + (g * 7) % 16] AS f, ($last::text[])[1 + (g / 3) % 16] AS l) n`,
      { bind: { userId: user.id, accountId: id, from, to: Math.min(contacts, from + 10_000), first: FIRST, last: LAST } },
    );
  }
  return user;
}

async function timed(ctx: AppContext, q: { pageSql: string; countSql: string; bind: Bind }): Promise<{ ms: number; rows: number; total: number }> {
  const started = process.hrtime.bigint();
  const [rows, [count]] = await Promise.all([
    ctx.db.sequelize.query(q.pageSql, { bind: q.bind, type: QueryTypes.SELECT }),
    ctx.db.sequelize.query<{ total: number }>(q.countSql, { bind: q.bind, type: QueryTypes.SELECT }),
  ]);
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, rows: rows.length, total: count.total };
}

async function main(): Promise<void> {
  const db = await openBenchDatabase('contact-search');
  const ctx = db.ctx;
  try {
    console.log(
      `PostgreSQL: ${(await scalar(ctx, 'SELECT version()')).split(',')[0]}; load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    const started = Date.now();
    const user = await seedUser(ctx, 'own', OWN_CONTACTS);
    for (let i = 0; i < OTHER_USERS; i++) await seedUser(ctx, `other${i}`, OTHER_CONTACTS);
    await maintain(ctx, 'VACUUM ANALYZE contacts, email_account_members');
    console.log(`seeded ${OWN_CONTACTS} contacts of the user, ${OTHER_USERS * OTHER_CONTACTS} of ${OTHER_USERS} other users, in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const searches = ['kovac jan', 'stastna', 'Kováč', 'šťastná zuzana', 'firma123', 'jan.kovac4', 'nobody-here'];
    const samples = new Map<string, { old: number[]; new: number[]; oldHits: string; newHits: string }>();
    for (const search of searches) samples.set(search, { old: [], new: [], oldHits: '', newHits: '' });
    // Warm-up, then rounds interleaving old and new so that drift hits both alike.
    for (let i = 0; i < ITERATIONS + 5; i++) {
      for (const search of searches) {
        const s = samples.get(search)!;
        const o = await timed(ctx, oldSearchQuery(user.id, search));
        const n = await timed(ctx, contactListQuery(user.id, { search, sort: 'lastEmail' }, { page: 1, limit: 50 }));
        if (i < 5) continue;
        s.old.push(o.ms);
        s.new.push(n.ms);
        s.oldHits = `${o.rows}/${o.total}`;
        s.newHits = `${n.rows}/${n.total}`;
      }
    }
    const width = Math.max(...searches.map((s) => s.length)) + 2;
    console.log(`\nsearch page (50) + total, ${ITERATIONS} runs each; hits = page rows/total`);
    console.log(`${'search'.padEnd(width)}  ${'old p50 ms'.padStart(10)}  ${'old hits'.padStart(11)}  ${'new p50 ms'.padStart(10)}  ${'new hits'.padStart(11)}`);
    for (const search of searches) {
      const s = samples.get(search)!;
      console.log(
        `${`"${search}"`.padEnd(width)}  ${percentile(s.old, 50).toFixed(2).padStart(10)}  ${s.oldHits.padStart(11)}  ${percentile(s.new, 50).toFixed(2).padStart(10)}  ${s.newHits.padStart(11)}`,
      );
    }
    const plan = contactListQuery(user.id, { search: 'kovac jan', sort: 'lastEmail' }, { page: 1, limit: 50 });
    const rows = await ctx.db.sequelize.query<Record<string, string>>(`EXPLAIN (ANALYZE, BUFFERS) ${plan.countSql}`, { bind: plan.bind, type: QueryTypes.SELECT });
    console.log(`\nEXPLAIN ANALYZE: total of "kovac jan"\n${rows.map((r) => `  ${r['QUERY PLAN']}`).join('\n')}`);
  } finally {
    await db.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
