import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Sequelize, Transaction } from 'sequelize';
import type { AppContext } from '../../src/app/context.js';
import { Sql, type Bind } from '../../src/db/sql.js';
import { EmailRepository } from '../../src/emails/email-repository.js';
import { MailStoreRepository } from '../../src/sync/mail-store-repository.js';
import { SyncService } from '../../src/sync/sync-service.js';
import { testContext } from '../support/harness.js';
import { testImapPort } from '../support/imap.js';
import { crmUser, freshMailUser, storedEmails, syncDeps, type MailUser } from './helpers.js';

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
 */
const MESSAGES = 1_200;
const PAGE = 500;
const OTHER_EMAILS = 30_000;

describe('mail sync statements on a table without statistics', function () {
  this.timeout(60_000);
  let ctx: AppContext;
  let mail: MailUser;
  let accountId: string;

  before(async () => {
    ctx = await testContext();
    mail = await freshMailUser('midcheck');
    const seed = fileURLToPath(new URL('../../scripts/jmap/seed.sh', import.meta.url));
    await promisify(execFile)('bash', [seed, mail.user, mail.pass, String(MESSAGES)], { env: { ...process.env, JMAP_IMAP_PORT: String(testImapPort()) } });
    // The rest of an installation: another account's emails, so that reading all of `emails` costs
    // what it does on a server and the planner weighs its indexes as it would there.
    const other = await crmUser();
    const otherAccount = await ctx.services.emailAccounts.add(other.fixture.user.id, { email: mail.user, emailPassword: mail.pass }, { actor: 'test' }, { requestSync: false });
    await ctx.db.sequelize.query(
      `WITH c AS (INSERT INTO contacts (user_id, email_account_id, email) VALUES ($1, $2, 'someone@people.example') RETURNING id)
       INSERT INTO emails (user_id, email_account_id, contact_id, jmap_id, message_id, subject, body, is_read, date)
       SELECT $1, $2, c.id, 'other-' || n, 'other-' || n || '@people.example', 'Other ' || n, 'Body ' || n, n % 2 = 0, now() - n * interval '1 minute'
         FROM c, generate_series(1, ${OTHER_EMAILS}) AS n`,
      { bind: [other.fixture.user.id, otherAccount.id] },
    );
    // No statistics, and none arriving from autovacuum while the test runs. PostgreSQL 18 has functions
    // for it; on 13-17 the superuser the suite runs as clears the catalog rows themselves.
    await ctx.db.sequelize.query(`
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

  after(async () => {
    await ctx.db.sequelize.query('ALTER TABLE emails RESET (autovacuum_enabled); ANALYZE emails;');
  });

  it('probes the unique Message-ID index on every page, never the account date index', async () => {
    const owner = await crmUser();
    accountId = (await ctx.services.emailAccounts.add(owner.fixture.user.id, { email: mail.user, emailPassword: mail.pass }, { actor: 'test' }, { requestSync: false })).id;
    const sql = new PlanRecordingSql(ctx.db.sequelize, 'INSERT INTO emails (user_id, email_account_id');
    const sync = new SyncService({ ...syncDeps(ctx), mailStore: new MailStoreRepository(sql) }, { batchSize: PAGE });

    const result = await sync.syncAccount(accountId);

    expect(result.outcome, JSON.stringify(result)).to.equal('ok');
    expect(await storedEmails(ctx, accountId)).to.have.length(MESSAGES);
    expect(sql.emailIndexes).to.have.length(Math.ceil(MESSAGES / PAGE));
    for (const indexes of sql.emailIndexes) expect(indexes).to.deep.equal(['emails_message_id_account_key']);
  });

  it('finds the read states still to be told to the server through the partial index of pending rows', async () => {
    expect(accountId, 'the account the first test synced').to.be.a('string');
    const sql = new PlanRecordingSql(ctx.db.sequelize, 'read_pending AND id > $after');
    const emails = new EmailRepository(sql);

    const pending = await emails.pendingReadStates(accountId, '00000000-0000-0000-0000-000000000000', 100);

    expect(pending).to.deep.equal([]);
    expect(sql.emailIndexes).to.deep.equal([['emails_read_pending_id_idx']]);
  });
});
