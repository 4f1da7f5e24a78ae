import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Sequelize, Transaction } from 'sequelize';
import { Sql, type Bind } from '../../src/db/sql.js';
import { sequelizeTransactions } from '../../src/db/transactions.js';
import { EmailRepository } from '../../src/emails/email-repository.js';
import { createLogger } from '../../src/logging/logger.js';
import { MailStoreRepository } from '../../src/sync/mail-store-repository.js';
import { SyncRepository } from '../../src/sync/sync-repository.js';
import { SyncService } from '../../src/sync/sync-service.js';
import { testContext } from '../support/harness.js';
import { testImapPort } from '../support/imap.js';
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { freshMailUser, jmapAs, type MailUser } from './helpers.js';

/** An Sql that also asks PostgreSQL for the plan of every statement it is told to watch. */
class PlanRecordingSql extends Sql {
  /** Per watched statement, the indexes its plan reads `emails` through. */
  readonly emailIndexes: string[][] = [];

  constructor(
    sequelize: Sequelize,
    private readonly watched: string,
  ) {
    super(sequelize);
  }

  override async select<T extends object>(sql: string, bind: Bind = {}, tx?: Transaction): Promise<T[]> {
    if (sql.includes(this.watched)) {
      const [row] = await super.select<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${sql}`, bind, tx);
      this.emailIndexes.push(indexesReadOn('emails', row['QUERY PLAN']));
    }
    return super.select<T>(sql, bind, tx);
  }
}

/**
 * How a plan reads the table: the index of each index scan, the indexes under each bitmap heap scan,
 * "seq scan" for a sequential one (the INSERT's own target is not a read).
 */
function indexesReadOn(table: string, plan: unknown): string[] {
  const found: string[] = [];
  const nodes = (node: unknown): Array<Record<string, unknown>> => {
    if (Array.isArray(node)) return node.flatMap(nodes);
    if (node === null || typeof node !== 'object') return [];
    return [node as Record<string, unknown>, ...Object.values(node).flatMap(nodes)];
  };
  for (const n of nodes(plan)) {
    if (n['Relation Name'] !== table) continue;
    if (n['Node Type'] === 'Seq Scan') found.push('seq scan');
    else if (n['Node Type'] === 'Bitmap Heap Scan') found.push(...nodes(n['Plans']).flatMap((b) => (typeof b['Index Name'] === 'string' ? [b['Index Name']] : [])));
    else if (typeof n['Index Name'] === 'string') found.push(n['Index Name']);
  }
  return found;
}

/**
 * A new installation has no statistics on `emails` until autovacuum's first ANALYZE, which may come
 * after a first sync has stored thousands of emails. The sync's statements must not read a whole
 * account (or table) in that state:
 * - "Is this Message-ID stored under another JMAP id?", for every email of every page, stays a probe
 *   of the unique (message_id, email_account_id) index. PostgreSQL only picks the bad plan for a page
 *   of many Message-IDs (hundreds), hence full pages of the default size.
 * - The read states still to be told to the server, looked up at the start of every run (idle checks
 *   included), come from the small partial index of pending rows (migration 0017).
 * On a database of its own (the statistics of the suite's shared `emails` stay as they are); the
 * sync runs with the repositories on that database and a JMAP client of the mail user.
 */
const MESSAGES = 1_200;
const PAGE = 500;
const OTHER_EMAILS = 30_000;

describe('mail sync statements on a table without statistics', function () {
  this.timeout(120_000);
  let scratch: ScratchDatabase;
  let db: Sequelize;
  let mail: MailUser;
  let otherAccountId: string;

  /** A user and an email account of the mail user on the scratch database (the password is never read: the client is given). */
  async function account(): Promise<string> {
    const [[user]] = (await db.query(`INSERT INTO users (username) VALUES ('u' || md5(random()::text)) RETURNING id::text`)) as [Array<{ id: string }>, unknown];
    const [[row]] = (await db.query(
      `INSERT INTO email_accounts (user_id, email, email_password, jmap_account_id, is_primary) VALUES ($1, $2, 'v1:unused', $2, true) RETURNING id::text`,
      { bind: [user.id, mail.user] },
    )) as [Array<{ id: string }>, unknown];
    return row.id;
  }

  before(async () => {
    // The Sequelize models are bound once per process (src/models/index.ts), by the suite's context;
    // the sync's model reads (SyncRepository.findAccount) run on the scratch transaction's connection.
    // Without this line the file passed only after another file had made the context.
    await testContext();
    scratch = await scratchDatabase('crm_plans', { migrated: true });
    db = scratch.db;
    mail = await freshMailUser('midcheck');
    const seed = fileURLToPath(new URL('../../scripts/jmap/seed.sh', import.meta.url));
    await promisify(execFile)('bash', [seed, mail.user, mail.pass, String(MESSAGES)], { env: { ...process.env, JMAP_IMAP_PORT: String(testImapPort()) } });
    // The rest of an installation: another account's emails, so that reading all of `emails` costs
    // what it does on a server and the planner weighs its indexes as it would there.
    otherAccountId = await account();
    await db.query(
      `WITH c AS (INSERT INTO contacts (user_id, email_account_id, email)
                  SELECT user_id, id, 'someone@people.example' FROM email_accounts WHERE id = $1 RETURNING id, user_id)
       INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, message_id, subject, body, is_read, date)
       SELECT c.user_id, $1, c.id, 'other-' || n, 'other-' || n || '@people.example', 'Other ' || n, 'Body ' || n, n % 2 = 0, now() - n * interval '1 minute'
         FROM c, generate_series(1, ${OTHER_EMAILS}) AS n`,
      { bind: [otherAccountId] },
    );
    // No statistics, and none arriving from autovacuum while the test runs. PostgreSQL 18 has functions
    // for it; on 13-17 the superuser the suite runs as clears the catalog rows themselves.
    await db.query(`
      ALTER TABLE emails SET (autovacuum_enabled = false);
      DO $$ BEGIN
        IF to_regprocedure('pg_clear_relation_stats(text, text)') IS NOT NULL THEN
          PERFORM pg_clear_relation_stats('public', 'emails');
          PERFORM pg_clear_attribute_stats('public', 'emails', attname, false)
             FROM pg_attribute WHERE attrelid = 'public.emails'::regclass AND attnum > 0 AND NOT attisdropped;
        ELSE
          DELETE FROM pg_statistic WHERE starelid = 'public.emails'::regclass;
          UPDATE pg_class SET reltuples = -1, relpages = 0, relallvisible = 0 WHERE oid = 'public.emails'::regclass;
        END IF;
      END $$;`);
  });

  after(() => scratch?.drop());

  it('probes the unique Message-ID index on every page, never the account date index', async () => {
    const accountId = await account();
    const sql = new PlanRecordingSql(db, 'INSERT INTO emails (user_id, email_account_id');
    const sync = new SyncService(
      {
        repository: new SyncRepository(new Sql(db)),
        mailStore: new MailStoreRepository(sql),
        transactions: sequelizeTransactions(db),
        logger: createLogger('error', { silent: true }),
        clientFor: () => jmapAs(mail),
      },
      { batchSize: PAGE },
    );

    const result = await sync.syncAccount(accountId);

    expect(result.outcome, JSON.stringify(result)).to.equal('ok');
    const [[stored]] = (await db.query('SELECT count(*)::int AS n FROM emails WHERE email_account_id = $1', { bind: [accountId] })) as [Array<{ n: number }>, unknown];
    expect(stored.n).to.equal(MESSAGES);
    expect(sql.emailIndexes).to.have.length(Math.ceil(MESSAGES / PAGE));
    for (const indexes of sql.emailIndexes) expect(indexes).to.deep.equal(['emails_message_id_account_key']);
  });

  it('finds the read states still to be told to the server through the partial index of pending rows', async () => {
    const sql = new PlanRecordingSql(db, 'read_pending AND id > $after');
    const emails = new EmailRepository(sql);

    const pending = await emails.pendingReadStates(otherAccountId, '00000000-0000-0000-0000-000000000000', 100);

    expect(pending).to.deep.equal([]);
    expect(sql.emailIndexes).to.deep.equal([['emails_read_pending_id_idx']]);
  });
});
