import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Transaction } from 'sequelize';
import type { AppContext } from '../../src/app/context.js';
import { Sql, type Bind } from '../../src/db/sql.js';
import { MailStoreRepository } from '../../src/sync/mail-store-repository.js';
import { SyncService } from '../../src/sync/sync-service.js';
import { testContext } from '../support/harness.js';
import { testImapPort } from '../support/imap.js';
import { crmUser, freshMailUser, storedEmails, syncDeps, type MailUser } from './helpers.js';

/** The Sql of the mail store, which also asks PostgreSQL for the plan of every page's email statement. */
class PlanRecordingSql extends Sql {
  readonly emailIndexes: string[][] = [];

  override async select<T extends object>(sql: string, bind: Bind = {}, tx?: Transaction): Promise<T[]> {
    if (sql.includes('INSERT INTO emails (user_id, email_account_id')) {
      const [row] = await super.select<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${sql}`, bind, tx);
      this.emailIndexes.push(indexesReadOn('emails', row!['QUERY PLAN']));
    }
    return super.select<T>(sql, bind, tx);
  }
}

/** Every index a plan reads the table through (the INSERT's own target is not a read). */
function indexesReadOn(table: string, plan: unknown): string[] {
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const n = node as Record<string, unknown>;
    if (n['Relation Name'] === table && typeof n['Index Name'] === 'string') found.push(n['Index Name']);
    Object.values(n).forEach(visit);
  };
  visit(plan);
  return found;
}

/**
 * "Is this Message-ID stored under another JMAP id?" is asked for every email of every page. It must
 * stay a probe of the unique (message_id, email_account_id) index even while the emails table has no
 * statistics at all (a new installation before autovacuum's first ANALYZE): read along the account's
 * date index instead, every page costs as much as the account's rows so far. PostgreSQL only picks
 * that plan for a page of many Message-IDs (hundreds), hence full pages of the default size.
 */
const MESSAGES = 1_200;
const PAGE = 500;

describe('mail sync: the Message-ID check of a page', function () {
  this.timeout(60_000);
  let ctx: AppContext;
  let mail: MailUser;

  before(async () => {
    ctx = await testContext();
    mail = await freshMailUser('midcheck');
    const seed = fileURLToPath(new URL('../../scripts/jmap/seed.sh', import.meta.url));
    await promisify(execFile)('bash', [seed, mail.user, mail.pass, String(MESSAGES)], { env: { ...process.env, JMAP_IMAP_PORT: String(testImapPort()) } });
    // No statistics, and none arriving from autovacuum while the test runs.
    await ctx.db.sequelize.query(`
      ALTER TABLE emails SET (autovacuum_enabled = false);
      SELECT pg_clear_relation_stats('public', 'emails');
      SELECT pg_clear_attribute_stats('public', 'emails', attname, false)
        FROM pg_attribute WHERE attrelid = 'public.emails'::regclass AND attnum > 0 AND NOT attisdropped;`);
  });

  after(async () => {
    await ctx.db.sequelize.query('ALTER TABLE emails RESET (autovacuum_enabled); ANALYZE emails;');
  });

  it('probes the unique Message-ID index on every page, never the account date index', async () => {
    const owner = await crmUser();
    const account = await ctx.services.emailAccounts.add(owner.fixture.user.id, { email: mail.user, emailPassword: mail.pass }, { actor: 'test' });
    const sql = new PlanRecordingSql(ctx.db.sequelize);
    const sync = new SyncService({ ...syncDeps(ctx), mailStore: new MailStoreRepository(sql) }, { batchSize: PAGE });

    const result = await sync.syncAccount(account.id);

    expect(result.outcome, JSON.stringify(result)).to.equal('ok');
    expect(await storedEmails(ctx, account.id)).to.have.length(MESSAGES);
    expect(sql.emailIndexes).to.have.length(Math.ceil(MESSAGES / PAGE));
    for (const indexes of sql.emailIndexes) expect(indexes).to.deep.equal(['emails_message_id_account_key']);
  });
});
