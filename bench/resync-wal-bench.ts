/**
 * What a full resync of an unchanged mailbox writes: `node --import=tsx/esm bench/resync-wal-bench.ts`.
 * Env: BENCH_MESSAGES (20000), BENCH_PAGE (500, the sync's page size).
 *
 * A throwaway embedded PostgreSQL (bench/bench-database.ts). The mailbox's first sync is written as the
 * sync writes it (writeEmails, pages of 500 in their own transactions, plain inserts); then, after a
 * CHECKPOINT and VACUUM ANALYZE (a settled installation), the same emails are written again as a full
 * sync writes them (its start, upserted pages, and its final sweep of what it did not see): what a full
 * resync of a mailbox that did not change costs. Reported:
 * WAL bytes (pg_current_wal_lsn), rows updated and the HOT share (pg_stat_user_tables.n_tup_hot_upd),
 * and the time. No mail server: the rows are synthetic, with bodies of 1-12 KB (a quarter over the
 * 2 KB TOAST threshold) and 200 correspondents. Runs unchanged against the code of an earlier release
 * (copy it into that checkout) for a before/after pair in the same conditions: it finds which writer it
 * has (`fullSyncWrites` below): 0.2.0's and 0.3.0's mark every row with the full sync's generation and
 * sweep older generations; since migration 0032 a full sync records the ids it saw in full_sync_seen
 * and sweeps the rest (docs/adr/0123).
 *
 * Also: new mail (BENCH_NEW, 50 emails written into the synced mailbox as the incremental sync writes
 * them), and an incremental sync seeing an unchanged page again. With
 * BENCH_SEARCH_WRITE=app (release 0.3, migration 0030) the search documents are written by a statement
 * of the writer instead of the emails trigger (the alternative of docs/adr/0120), to compare the two.
 */
import os from 'node:os';
import pg from 'pg';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { maintain, openBenchDatabase } from './bench-database.js';
import { writeEmails } from '../src/sync/batch-writer.js';
import type { MappedEmail } from '../src/sync/email-mapper.js';
import { MailStoreRepository } from '../src/sync/mail-store-repository.js';
import { Sql } from '../src/db/sql.js';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20_000);
const PAGE = Number(process.env.BENCH_PAGE ?? 500);
const NEW = Number(process.env.BENCH_NEW ?? 50);
const APP_WRITE = process.env.BENCH_SEARCH_WRITE === 'app';
/**
 * BENCH_SWEEP=idlist (with the writer of migration 0032): the alternative of docs/adr/0123, the server's
 * complete id list fetched at the end and compared. Its database side only: pages written as an
 * incremental sync writes them (nothing recorded) and one DELETE of the rows not in the list. The
 * Email/query pages it would fetch (ids only) are not part of this figure.
 */
const ID_LIST = process.env.BENCH_SWEEP === 'idlist';

/** How a full sync (generation: its number) or an incremental one (null) writes a batch, in the writer this checkout has. */
type Write = (emails: MappedEmail[], tx: Transaction, how: { generation: number | null; allNew?: boolean; step?: 'start' | 'end' }) => Promise<unknown>;

/**
 * 0.2.0: writeEmails(store, account, input, generation, tx, { allNew }); 0.3.0: the generation in the
 * input; since migration 0032: no generation, a full sync under way records what it saw and its end
 * sweeps the rest (seen: 'forget' at its start, 'sweep' at its end).
 */
function fullSyncWrites(store: MailStoreRepository, account: { id: string; userId: string }, sequelize: Sequelize): { writer: string; write: Write } {
  const loose = writeEmails as unknown as (...args: unknown[]) => Promise<unknown>;
  if (writeEmails.length >= 5) {
    return {
      writer: '0.2.0 (generations)',
      write: (emails, tx, { generation, allNew = false, step }) =>
        loose(store, account, { emails, sweepGeneration: step === 'end' ? generation : undefined }, generation ?? 2, tx, { allNew }),
    };
  }
  if ('deleteOlderGenerations' in MailStoreRepository.prototype) {
    return {
      writer: '0.3.0 (generations)',
      write: (emails, tx, { generation, allNew = false, step }) =>
        loose(store, account, { emails, generation: generation ?? 2, allNew, sweepGeneration: step === 'end' ? generation : undefined }, tx),
    };
  }
  if (ID_LIST) {
    return {
      writer: 'server id list at the end (alternative; database side only)',
      write: async (emails, tx, { allNew = false, step }) => {
        if (step !== 'end') return loose(store, account, { emails, allNew }, tx);
        const ids = mailbox(MESSAGES).map((m) => m.jmapId);
        return sequelize.query(`DELETE FROM emails e WHERE e.email_account_id = $1 AND NOT EXISTS (SELECT 1 FROM unnest($2::text[]) AS s(id) WHERE s.id = e.jmap_id)`, {
          bind: [account.id, ids],
          transaction: tx,
        });
      },
    };
  }
  return {
    writer: 'full_sync_seen (migration 0032)',
    write: (emails, tx, { generation, allNew = false, step }) =>
      loose(store, account, { emails, allNew, recordSeen: generation !== null && !allNew, seen: step === 'start' ? 'forget' : step === 'end' ? 'sweep' : undefined }, tx),
  };
}

function mailbox(count: number, first = 0): MappedEmail[] {
  const words = 'faktúra objednávka dodávka ponuka zmluva termín platba tovar služba kontrola'.split(' ');
  return Array.from({ length: count }, (_, n) => {
    const i = first + n;
    const who = `klient${i % 200}@partner${i % 17}.test`;
    const size = i % 4 === 0 ? 6_000 + (i % 7) * 1_000 : 1_000 + (i % 5) * 200;
    const body = Array.from({ length: Math.ceil(size / 8) }, (_, w) => words[(i + w) % words.length])
      .join(' ')
      .slice(0, size);
    return {
      jmapId: `M${i.toString(36).padStart(8, '0')}`,
      included: true,
      messageId: `<m${i}@bench.test>`,
      threadId: `T${Math.floor(i / 3)}`,
      inReplyTo: null,
      from: `Klient ${i % 200} <${who}>`,
      to: 'Tím <tim@firma.test>',
      subject: `${words[i % words.length]} č. ${i}`,
      body,
      isRead: i % 3 === 0,
      date: new Date(Date.UTC(2025, 0, 1) + i * 60_000),
      participants: [who],
      correspondents: [{ email: who, name: `Klient ${i % 200}` }],
      attachments: [],
      hasAttachments: false,
      outbound: false,
      addresses: { from: [{ name: `Klient ${i % 200}`, email: who }], to: [{ name: 'Tím', email: 'tim@firma.test' }], cc: [], replyTo: [] },
    };
  });
}

const db = await openBenchDatabase('resync-wal');
const { sequelize } = db.ctx.db;
const select = <T extends object>(sql: string) => sequelize.query<T>(sql, { type: QueryTypes.SELECT });
try {
  const [{ userId, accountId }] = await select<{ userId: string; accountId: string }>(
    `WITH u AS (INSERT INTO users (username) VALUES ('bench-resync') RETURNING id)
     INSERT INTO email_accounts (user_id, email, email_password, jmap_account_id) SELECT id, 'tim@firma.test', 'v1:bench', 'bench' FROM u
     RETURNING user_id AS "userId", id AS "accountId"`,
  );
  const store = new MailStoreRepository(new Sql(sequelize));
  const account = { id: accountId, userId: userId };
  const emails = mailbox(MESSAGES);
  // The owner's to switch (ADR 0171).
  if (APP_WRITE) await maintain(db.ctx, 'ALTER TABLE emails DISABLE TRIGGER emails_search_insert');

  const { writer, write } = fullSyncWrites(store, account, sequelize);
  /** Pages of a full sync (generation; with its start and its sweep unless it is a first sync) or of an incremental one (null). */
  const writeAll = async (generation: number | null, allNew: boolean, batch = emails) => {
    const started = process.hrtime.bigint();
    const full = generation !== null && !allNew;
    if (full) await sequelize.transaction((tx) => write([], tx, { generation, step: 'start' }));
    for (let i = 0; i < batch.length; i += PAGE) {
      await sequelize.transaction(async (tx) => {
        await write(batch.slice(i, i + PAGE), tx, { generation, allNew });
        // The application's own write of the documents, as the upsert would carry it (the rows it inserted).
        if (APP_WRITE) {
          await sequelize.query(
            `INSERT INTO email_search (email_id, email_account_id, date, document)
             SELECT e.id, e.email_account_id, e.date, strip(crm_email_search_vector(e.subject, e.body, e."from", e."to"))
               FROM emails e WHERE e.email_account_id = $1 AND e.jmap_id = ANY($2::text[]) ON CONFLICT (email_id) DO NOTHING`,
            { bind: [accountId, batch.slice(i, i + PAGE).map((m) => m.jmapId)], transaction: tx },
          );
        }
      });
    }
    if (full) await sequelize.transaction((tx) => write([], tx, { generation, step: 'end' }));
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const walSince = async (lsn: string) => {
    const [{ wal }] = await select<{ wal: string }>(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '${lsn}')::text AS wal`);
    return `${(Number(wal) / 1048576).toFixed(2)} MB`;
  };
  const snapshot = async () => {
    await sequelize.query('SELECT pg_stat_force_next_flush()').catch(() => undefined);
    const [row] = await select<{ lsn: string; upd: string; hot: string }>(
      `SELECT pg_current_wal_lsn()::text AS lsn, n_tup_upd::text AS upd, n_tup_hot_upd::text AS hot FROM pg_stat_user_tables WHERE relname = 'emails'`,
    );
    return row;
  };

  const firstLsn = (await snapshot()).lsn;
  const firstMs = await writeAll(1, true);
  const firstWal = await walSince(firstLsn);
  // Maintenance on its own connection (the app's pool has a 30 s statement timeout), as the superuser:
  // CHECKPOINT is not the app role's (ADR 0121).
  const maintenance = new pg.Client({ connectionString: (db as { superuserUrl?: string }).superuserUrl ?? db.url });
  await maintenance.connect();
  await maintenance.query('CHECKPOINT');
  await maintenance.query('VACUUM ANALYZE emails');
  await maintenance.query('CHECKPOINT');
  await maintenance.end();
  const before = await snapshot();
  const resyncMs = await writeAll(2, false);
  const after = await snapshot();
  const [{ wal }] = await select<{ wal: string }>(`SELECT pg_wal_lsn_diff('${after.lsn}', '${before.lsn}')::text AS wal`);
  const updated = Number(after.upd) - Number(before.upd);
  const hot = Number(after.hot) - Number(before.hot);
  // An incremental sync that sees a page it has seen (nothing changed).
  const again = await snapshot();
  const againMs = await writeAll(null, false, emails.slice(0, PAGE));
  const againAfter = await snapshot();
  const againWal = await walSince(again.lsn);
  // New mail: a page of NEW emails that the mailbox did not have, written as the incremental sync writes them.
  const fresh = mailbox(NEW, MESSAGES);
  const newLsn = (await snapshot()).lsn;
  const newMs = await writeAll(null, false, fresh);
  const newWal = await walSince(newLsn);
  const [{ version }] = await select<{ version: string }>("SELECT current_setting('server_version') AS version");
  const per1000 = (ms: number, n: number) => `${((ms * 1000) / n).toFixed(0)} ms / 1,000 emails`;
  console.log(`PostgreSQL ${version}; ${MESSAGES} emails, pages of ${PAGE}${APP_WRITE ? '; search documents written by the application' : ''}; load ${os.loadavg()[0].toFixed(2)}`);
  console.log(`writer: ${writer}`);
  console.log(`first sync: ${firstMs.toFixed(0)} ms (${per1000(firstMs, MESSAGES)}), WAL ${firstWal}`);
  console.log(
    `full resync of the unchanged mailbox: ${resyncMs.toFixed(0)} ms (${per1000(resyncMs, MESSAGES)}), WAL ${(Number(wal) / 1048576).toFixed(2)} MB, ` +
      `${updated} rows updated, ${hot} HOT (${updated ? ((100 * hot) / updated).toFixed(1) : '0'}%)`,
  );
  console.log(`incremental sync seeing an unchanged page of ${PAGE} again: ${againMs.toFixed(0)} ms, WAL ${againWal}, ${Number(againAfter.upd) - Number(again.upd)} rows updated`);
  console.log(`new mail, ${NEW} emails: ${newMs.toFixed(0)} ms, WAL ${newWal}`);
} finally {
  await db.close();
}
