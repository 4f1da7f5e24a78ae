/**
 * Erasure (and export) of one address with 10,000 emails across 5 email accounts, among 20,000 other
 * emails per account (seeded directly in SQL, bench/contacts-seed.ts). Prints the time and the peak
 * RSS of each step: the export streams a zip of every email (JSON Lines, bodies included) to a sink
 * that discards it, then the erasure deletes them, one transaction per account.
 *
 *   node --import=tsx/esm bench/privacy-erase-bench.ts            # throwaway embedded PostgreSQL
 *   BENCH_DATABASE_URL=postgres://... node --import=tsx/esm bench/privacy-erase-bench.ts
 */
import { Writable } from 'node:stream';
import { QueryTypes } from 'sequelize';
import { maintain, openBenchDatabase } from './bench-database.js';
import { seedMailbox } from './contacts-seed.js';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 5);
const ERASED_EMAILS = Number(process.env.BENCH_ERASED_EMAILS ?? 10_000);
const OTHER_EMAILS = Number(process.env.BENCH_OTHER_EMAILS ?? 20_000);
const ADDRESS = 'jana.novakova@clients.example';

/** The highest RSS seen while `work` runs (sampled every 20 ms), and how long it took. */
async function measure<T>(work: () => Promise<T>): Promise<{ result: T; ms: number; peakMb: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const started = performance.now();
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, ms: performance.now() - started, peakMb: peak / 1024 / 1024 };
  } finally {
    clearInterval(timer);
  }
}

async function main(): Promise<void> {
  const db = await openBenchDatabase('privacy');
  const { ctx } = db;
  const sequelize = ctx.db.sequelize;
  const perAccount = Math.ceil(ERASED_EMAILS / ACCOUNTS);
  console.log(`seeding ${ACCOUNTS} accounts x (${OTHER_EMAILS} other emails + ${perAccount} with ${ADDRESS}) ...`);
  const seedStart = performance.now();
  for (let i = 0; i < ACCOUNTS; i++) {
    const box = await seedMailbox(ctx, `privacy${i}`, { contacts: 300, emails: OTHER_EMAILS });
    const bind = { userId: box.user.id, accountId: box.account.id, address: ADDRESS, n: perAccount, own: box.account.email };
    // The person's contact with notes, their mail (a quarter with another contact on Cc) and an attachment each.
    await sequelize.query(`INSERT INTO contacts (user_id, email_account_id, email, name, notes) VALUES ($userId, $accountId, $address, 'Jana Nováková', 'Prefers phone calls')`, {
      bind,
    });
    await sequelize.query(
      `WITH j AS (SELECT id FROM contacts WHERE email_account_id = $accountId AND email = $address),
            o AS (SELECT id, email FROM contacts WHERE email_account_id = $accountId AND email <> $address ORDER BY email LIMIT 1)
       INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, message_id, thread_id, "from", "to", subject, body, is_read, date, participants)
       SELECT $userId::uuid, $accountId::uuid, j.id, 'J' || g, format('<j%s.%s>', g, $own::text), 'TJ' || (g / 5), $address, $own,
              format('Re: zmluva %s', g), repeat(format('Dobrý deň, k zmluve %s posielam pripomienky. ', g), 12), true,
              now() - g * interval '7 minutes', CASE WHEN g % 4 = 0 THEN ARRAY[$address, o.email] ELSE ARRAY[$address] END
         FROM generate_series(1, $n::int) g, j, o`,
      { bind },
    );
    await sequelize.query(
      `WITH o AS (SELECT id, email FROM contacts WHERE email_account_id = $accountId AND email <> $address ORDER BY email LIMIT 1)
       INSERT INTO email_contacts (email_id, contact_id)
       SELECT e.id, e.contact_id FROM emails e WHERE e.email_account_id = $accountId AND e.jmap_id LIKE 'J%'
       UNION ALL
       SELECT e.id, o.id FROM emails e, o WHERE e.email_account_id = $accountId AND e.jmap_id LIKE 'J%' AND cardinality(e.participants) = 2`,
      { bind },
    );
    await sequelize.query(
      `INSERT INTO email_attachments (email_id, position, blob_id, name, type, size)
       SELECT id, 0, 'B' || jmap_id, 'zmluva.pdf', 'application/pdf', 48213 FROM emails WHERE email_account_id = $accountId AND jmap_id LIKE 'J%'`,
      { bind },
    );
  }
  await maintain(ctx, 'ANALYZE');
  console.log(`seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s; RSS before the measured steps ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MiB`);

  let zipBytes = 0;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      zipBytes += chunk.length;
      done();
    },
  });
  const exported = await measure(() => ctx.services.privacy.export(ADDRESS, sink, { actor: 'bench' }));
  console.log(
    `export: ${exported.result.emails} emails, ${exported.result.contacts} contacts, ${exported.result.accounts} accounts -> ` +
      `${(zipBytes / 1024 / 1024).toFixed(1)} MiB zip in ${(exported.ms / 1000).toFixed(2)} s; peak RSS ${exported.peakMb.toFixed(0)} MiB`,
  );

  const erased = await measure(() => ctx.services.privacy.erase(ADDRESS, { actor: 'bench' }));
  console.log(
    `erase: ${erased.result.emails} emails, ${erased.result.contacts} contacts in ${erased.result.accounts.length} accounts ` +
      `in ${(erased.ms / 1000).toFixed(2)} s; peak RSS ${erased.peakMb.toFixed(0)} MiB`,
  );
  const [left] = await sequelize.query<{ n: number; total: number }>(
    'SELECT count(*) FILTER (WHERE participants @> ARRAY[$address]::text[])::int AS n, count(*)::int AS total FROM emails',
    { bind: { address: ADDRESS }, type: QueryTypes.SELECT },
  );
  console.log(`left with the address: ${left.n}; emails left in all: ${left.total}`);
  await db.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
