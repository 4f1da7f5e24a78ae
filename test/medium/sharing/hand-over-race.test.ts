/**
 * An ownership hand-over racing the writers of the account's rows (migration 0018, the sync's lease
 * renewal, the sent-email writer): nothing is written under the former owner, and two hand-overs by
 * the same owner never both succeed. The hand-over goes over HTTP; the sync's batch is its repository
 * on its own connection, as a running sync would use it.
 */
import { expect } from 'chai';
import pg from 'pg';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { Sql } from '../../../src/db/sql.js';
import { SyncRepository, type HeldLease } from '../../../src/sync/sync-repository.js';
import { until } from '../../support/poll.js';
import { requireDatabaseUrl } from '../../support/test-env.js';
import { sharedMailbox, type SharedMailbox } from '../../sharing/helpers.js';

describe('sharing: a hand-over racing the writers of the account', function () {
  this.timeout(120_000);
  let box: SharedMailbox;

  beforeEach(async () => {
    box = await sharedMailbox('handover');
  });

  const owners = async () =>
    (
      await box.ctx.db.sequelize.query<{ user_id: string; n: number }>(
        `SELECT user_id, count(*)::int AS n FROM (SELECT user_id FROM contacts WHERE email_account_id = $1
                                                  UNION ALL SELECT user_id FROM emails WHERE email_account_id = $1) r GROUP BY user_id`,
        { bind: [box.accountId], type: QueryTypes.SELECT },
      )
    ).map((r) => r.user_id);

  /** Polls until some backend waits on a lock while running a statement containing `fragment`. */
  async function someoneWaits(fragment: string): Promise<void> {
    await until(
      async () => {
        const [row] = await box.ctx.db.sequelize.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND position($1 in query) > 0",
          { bind: [fragment], type: QueryTypes.SELECT },
        );
        return row.n > 0;
      },
      { what: `someone waiting on a lock in "${fragment}"`, timeoutMs: 20_000 },
    );
  }

  it('a sync batch renewing its lease during a hand-over loses the lease and writes nothing under the former owner', async () => {
    const sql = new Sql(box.ctx.db.sequelize);
    const sync = new SyncRepository(sql);
    await sync.ensureStateRow(box.accountId);
    await sync.takeLease(box.accountId, 'race-test', 60);
    const [account] = await box.ctx.db.sequelize.query<{ jmap_account_id: string; email: string; email_password: string; user_id: string }>(
      'SELECT jmap_account_id, email, email_password, user_id FROM email_accounts WHERE id = $1',
      { bind: [box.accountId], type: QueryTypes.SELECT },
    );
    const lease: HeldLease = {
      accountId: box.accountId,
      owner: 'race-test',
      leaseSeconds: 60,
      jmapAccountId: account.jmap_account_id,
      email: account.email,
      emailPassword: account.email_password,
      userId: account.user_id,
      previousStatus: 'ok',
      intervalMs: 300_000,
      phaseMs: 0,
    };

    // A batch in progress holds the account's sync state row: the hand-over locks the account, then waits for it.
    const batch = new pg.Client({ connectionString: requireDatabaseUrl() });
    await batch.connect();
    try {
      await batch.query('BEGIN');
      await batch.query('SELECT 1 FROM mail_sync_states WHERE email_account_id = $1 FOR UPDATE', [box.accountId]);
      const handOver = box.owner.as(request(box.app).patch(`/api/email-accounts/${box.accountId}/share/${box.editor.fixture.user.id}`)).send({ role: 'owner' });
      const answered = handOver.then((r) => r);
      await someoneWaits('FROM mail_sync_states WHERE email_account_id');

      // The next batch starts while the hand-over waits: its renewal must wait for it and then see the new owner.
      const renewed = box.ctx.db.sequelize.transaction(async (tx) => sync.renewLease(lease, {}, tx));
      // The renewal is under way (waiting behind the hand-over) before the batch lets the hand-over go.
      await someoneWaits('UPDATE mail_sync_states s SET locked_until');
      await batch.query('COMMIT');
      expect((await answered).status).to.equal(200);
      expect(await renewed, 'the renewal must see the hand-over').to.equal(false);
    } finally {
      await batch.end();
    }
    expect(await owners()).to.deep.equal([box.editor.fixture.user.id]);

    // A writer that still names the former owner is refused by the owner key (23503), not stored.
    const code = await box.ctx.db.sequelize
      .query(`INSERT INTO contacts (user_id, email_account_id, email) VALUES ($1, $2, 'late@x.test')`, { bind: [box.owner.fixture.user.id, box.accountId] })
      .then(
        () => 'stored',
        (e: { parent?: { code?: string } }) => e.parent?.code,
      );
    expect(code).to.equal('23503');
  });

  it('two hand-overs started by the same owner at once: one succeeds, the other is refused, and one owner remains', async () => {
    for (let round = 0; round < 4; round++) {
      const owner = round === 0 ? box.owner : box.editor;
      const [first, second] = round === 0 ? [box.editor, box.viewer] : [box.owner, box.viewer];
      // Each round starts from the owner named above (the previous round's winner hands back).
      const current = await box.ctx.db.sequelize.query<{ user_id: string }>('SELECT user_id FROM email_accounts WHERE id = $1', {
        bind: [box.accountId],
        type: QueryTypes.SELECT,
      });
      if (current[0].user_id !== owner.fixture.user.id) {
        const holder = [box.owner, box.editor, box.viewer].find((u) => u.fixture.user.id === current[0].user_id)!;
        const back = await holder.as(request(box.app).patch(`/api/email-accounts/${box.accountId}/share/${owner.fixture.user.id}`)).send({ role: 'owner' });
        expect(back.status).to.equal(200);
      }
      const answers = await Promise.all(
        [first, second].map((to) => owner.as(request(box.app).patch(`/api/email-accounts/${box.accountId}/share/${to.fixture.user.id}`)).send({ role: 'owner' })),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(
        statuses.filter((s) => s === 200),
        `round ${round}: ${statuses.join(', ')}`,
      ).to.have.length.at.most(1);
      for (const s of statuses) expect([200, 403, 409]).to.include(s);
      const [row] = await box.ctx.db.sequelize.query<{ user_id: string; owners: number }>(
        `SELECT a.user_id, (SELECT count(*) FROM email_account_members m WHERE m.email_account_id = a.id AND m.role = 'owner')::int AS owners
           FROM email_accounts a WHERE a.id = $1`,
        { bind: [box.accountId], type: QueryTypes.SELECT },
      );
      expect(row.owners).to.equal(1);
      const winner = answers.findIndex((a) => a.status === 200);
      const expected = winner === -1 ? owner : [first, second][winner];
      expect(row.user_id).to.equal(expected.fixture.user.id);
      expect(await owners()).to.deep.equal([expected.fixture.user.id]);
    }
  });
});
