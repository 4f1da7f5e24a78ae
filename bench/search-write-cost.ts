/**
 * What the Slovak search documents cost the writers (issue 49: "write cost of a first sync and of new
 * mail side by side with today's, at most 1.2×"). On an installation seeded before (bench/search-seed-run.ts),
 * in alternating rounds, each inside a transaction that is rolled back:
 *
 * - a first sync's page: 1,000 emails inserted in one statement, as the sync writes a page (their
 *   subjects, bodies and addresses copied from the installation's own mail), every trigger on, then their
 *   attachments (one each, as the sync writes them after the page);
 * - new mail: 20 emails one statement each, each with one attachment, as an incremental sync writes them.
 *
 * "0.5": release 0.5's document (migrations 0018 and 0030: words and prefixes, no stems, domains or
 * attachment names; its trigger function put back inside the transaction, the attachments' trigger
 * disabled). "now": this release's (migration 0065). The rest of the write (the email, its links,
 * threads, events) is the same on both sides, so the ratio is what the documents add to the whole
 * statement. The figures are the median per side and the median of the per-round ratios.
 *
 *   BENCH_DATABASE_URL=<the app's URL> BENCH_OWNER_URL=<the schema owner's URL> node --import=tsx/esm bench/search-write-cost.ts
 *   BENCH_ROUNDS (7)
 */
import os from 'node:os';
import pg from 'pg';
import { percentile } from './bench-http.js';
import { currentDocuments, useDocuments, type DocumentRelease } from './release-05-documents.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const PAGE = 1_000;
const NEW_MAIL = 20;

const COLUMNS = `user_id, email_account_id, contact_id, jmap_id, message_id, thread_id, "from", "to", subject, body, is_read, date, participants, has_attachments, addresses`;
/** Copies of the emails `$1` (ids picked before the rounds: the copy's own read is a key lookup each). */
const copied = `INSERT INTO emails (${COLUMNS})
   SELECT user_id, email_account_id, contact_id, 'wc-' || gen_random_uuid(), '<wc-' || gen_random_uuid() || '@bench>', thread_id, "from", "to", subject, body, is_read, now(), participants, true, addresses
     FROM emails WHERE id = ANY($1::uuid[]) RETURNING id`;
const attachments = `INSERT INTO email_attachments (email_id, position, blob_id, name, type, size)
  SELECT u.id, 0, 'wc-' || u.n, 'Faktúra-2026-' || u.n || '.pdf', 'application/pdf', 1000 FROM unnest($1::uuid[]) WITH ORDINALITY AS u(id, n)`;

/** One side's round over `sources` (PAGE + NEW_MAIL ids of existing emails), rolled back. */
async function round(client: pg.Client, side: DocumentRelease, sources: string[], current: string): Promise<{ page: number; newMail: number }> {
  await client.query('BEGIN');
  try {
    await client.query('SET LOCAL statement_timeout = 0');
    await useDocuments(client, side, current);
    const t0 = process.hrtime.bigint();
    const inserted = await client.query<{ id: string }>(copied, [sources.slice(0, PAGE)]);
    await client.query(attachments, [inserted.rows.map((r) => r.id)]);
    const t1 = process.hrtime.bigint();
    for (const source of sources.slice(PAGE)) {
      const one = await client.query<{ id: string }>(copied, [[source]]);
      await client.query(attachments, [one.rows.map((r) => r.id)]);
    }
    const t2 = process.hrtime.bigint();
    return { page: Number(t1 - t0) / 1e6, newMail: Number(t2 - t1) / 1e6 };
  } finally {
    await client.query('ROLLBACK');
  }
}

const median = (xs: number[]) => percentile(xs, 50);

async function main(): Promise<void> {
  const url = process.env.BENCH_OWNER_URL;
  if (!url) throw new Error('BENCH_OWNER_URL: the schema owner may replace the trigger function inside the rolled-back transaction');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const current = await currentDocuments(client);
    const { rows: busiest } = await client.query<{ id: string; n: string }>('SELECT email_account_id AS id, count(*) AS n FROM emails GROUP BY 1 ORDER BY 2 DESC LIMIT 1');
    const perRound = PAGE + NEW_MAIL;
    const { rows: picked } = await client.query<{ id: string }>('SELECT id FROM emails WHERE email_account_id = $1 ORDER BY date DESC, id LIMIT $2', [
      busiest[0].id,
      (ROUNDS + 1) * perRound,
    ]);
    const stretch = (r: number) => picked.slice(r * perRound, (r + 1) * perRound).map((p) => p.id);
    const results: Record<DocumentRelease, Array<{ page: number; newMail: number }>> = { '0.5': [], now: [] };
    // Warm-up, one of each, not counted.
    for (const side of ['0.5', 'now'] as DocumentRelease[]) await round(client, side, stretch(0), current);
    for (let r = 0; r < ROUNDS; r++) {
      // Each round another stretch of the mailbox, both sides the same; the side that goes first alternates.
      const order: DocumentRelease[] = r % 2 === 0 ? ['0.5', 'now'] : ['now', '0.5'];
      for (const side of order) results[side].push(await round(client, side, stretch(r + 1), current));
    }
    const ratio = (part: 'page' | 'newMail') => median(results.now.map((now, i) => now[part] / results['0.5'][i][part]));
    console.log(
      `search documents' write cost, ${busiest[0].n} emails in the mailbox copied from, ${ROUNDS} alternated rounds, load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log(`part                                   0.5 ms    now ms   now / 0.5`);
    console.log(
      `first sync: page of ${PAGE} + attachments  ${median(results['0.5'].map((x) => x.page))
        .toFixed(0)
        .padStart(8)}  ${median(results.now.map((x) => x.page))
        .toFixed(0)
        .padStart(8)}  ${ratio('page').toFixed(2).padStart(10)}`,
    );
    console.log(
      `new mail: ${NEW_MAIL} emails, one at a time      ${median(results['0.5'].map((x) => x.newMail))
        .toFixed(0)
        .padStart(8)}  ${median(results.now.map((x) => x.newMail))
        .toFixed(0)
        .padStart(8)}  ${ratio('newMail').toFixed(2).padStart(10)}`,
    );
  } finally {
    await client.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
