import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../src/app/context.js';
import { createEmailAccount } from '../support/email-factories.js';
import { testApp, testContext } from '../support/harness.js';
import { until } from '../support/poll.js';
import { crmUser, freshMailUser, put } from '../sync/helpers.js';
import { member, type Member } from '../companies/support.js';
import { Sql } from '../../src/db/sql.js';
import { PersonRepository } from '../../src/people/person-repository.js';
import { personOf } from './support.js';

/**
 * People are derived from contacts by the triggers of migration 0050 (docs/adr/0135): whatever wrote
 * the contacts, at whatever moment, recomputing the links from the contacts gives what is stored.
 */
describe('people: kept from contacts by every writer, at once', function () {
  this.timeout(180_000);
  const run = randomBytes(4).toString('hex');
  let app: Express;
  let ctx: AppContext;

  before(async () => {
    app = await testApp();
    ctx = await testContext();
  });

  /**
   * The people links recomputed from the contacts, compared with the stored ones: every address of a
   * contact has exactly one person, which the contact carries, no address row is left without a
   * contact, no person without an address.
   */
  async function expectConsistent(): Promise<void> {
    const q = <T extends object>(sql: string) => ctx.db.sequelize.query<T>(sql, { type: QueryTypes.SELECT });
    const missing = await q<{ email: string }>('SELECT DISTINCT c.email FROM contacts c WHERE NOT EXISTS (SELECT 1 FROM person_emails pe WHERE pe.email = c.email)');
    const stale = await q<{ email: string }>('SELECT pe.email FROM person_emails pe WHERE NOT EXISTS (SELECT 1 FROM contacts c WHERE c.email = pe.email)');
    const empty = await q<{ id: string }>('SELECT p.id FROM people p WHERE NOT EXISTS (SELECT 1 FROM person_emails pe WHERE pe.person_id = p.id)');
    // Each contact carries its address's person (migration 0083).
    const misfiled = await q<{ id: string }>('SELECT c.id FROM contacts c JOIN person_emails pe ON pe.email = c.email WHERE c.person_id <> pe.person_id');
    const [counts] = await q<{ addresses: number; linked: number }>(
      'SELECT (SELECT count(DISTINCT email) FROM contacts)::int AS addresses, (SELECT count(*) FROM person_emails)::int AS linked',
    );
    expect({ missing, stale, empty, misfiled }).to.deep.equal({ missing: [], stale: [], empty: [], misfiled: [] });
    expect(counts.linked).to.equal(counts.addresses);
  }

  /** Waits until some session waits for a lock the backend `pid` (a transaction the test holds) has. */
  async function untilBlockedBy(pid: number, what: string): Promise<void> {
    await until(
      async () => {
        const [row] = await ctx.db.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', {
          bind: [pid],
          type: QueryTypes.SELECT,
        });
        return row.n > 0;
      },
      { what, timeoutMs: 20_000 },
    );
  }

  it('gives one person to an address five mailboxes add at the same moment, and removes it with its last contact', async () => {
    const owners: Member[] = await Promise.all(Array.from({ length: 5 }, () => member(app)));
    const boxes = await Promise.all(owners.map((o) => createEmailAccount(o.fixture.user)));
    const address = `spolu-${run}@subezne-${run}.sk`;
    const created = await Promise.all(owners.map((o, i) => o.post('/api/contacts', { emailAccountId: boxes[i].id, email: address })));
    expect(created.map((r) => r.status)).to.deep.equal([201, 201, 201, 201, 201]);
    await expectConsistent();
    const person = (await personOf(address))!;
    // Deleted everywhere at once: the last one takes the person with it.
    const deleted = await Promise.all(owners.map((o, i) => o.del(`/api/contacts/${created[i].body.data.contact.id}`)));
    expect(deleted.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200]);
    expect(await personOf(address)).to.equal(undefined);
    const [gone] = await ctx.db.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM people WHERE id = $1', { bind: [person], type: QueryTypes.SELECT });
    expect(gone.n).to.equal(0);
    await expectConsistent();
  });

  it('keeps the person when a contact of the address is added while its last other contact is deleted (either order)', async () => {
    const [a, b] = [await member(app), await member(app)];
    const [boxA, boxB] = [await createEmailAccount(a.fixture.user), await createEmailAccount(b.fixture.user)];
    for (const addFirst of [true, false]) {
      const address = `preteky-${addFirst}-${run}@subezne-${run}.sk`;
      const first = await a.post('/api/contacts', { emailAccountId: boxA.id, email: address });
      expect(first.status).to.equal(201);
      // One side holds its uncommitted change in a transaction of its own; the other goes through the API and must wait for it.
      const held = await ctx.db.sequelize.transaction();
      try {
        if (addFirst) {
          await ctx.db.sequelize.query('INSERT INTO contacts (user_id, email_account_id, email) VALUES ($1, $2, $3)', { bind: [b.id, boxB.id, address], transaction: held });
        } else {
          await ctx.db.sequelize.query('DELETE FROM contacts WHERE id = $1', { bind: [first.body.data.contact.id], transaction: held });
        }
        const [{ pid }] = await ctx.db.sequelize.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', { type: QueryTypes.SELECT, transaction: held });
        const other = addFirst ? a.del(`/api/contacts/${first.body.data.contact.id}`) : b.post('/api/contacts', { emailAccountId: boxB.id, email: address });
        const pending = other.then((r) => r);
        await untilBlockedBy(pid, 'the API side to wait on the address held');
        await held.commit();
        expect((await pending).status).to.be.oneOf([200, 201]);
      } finally {
        if (!(held as unknown as { finished?: string }).finished) await held.rollback();
      }
      // One contact of the address is left (in b's mailbox): it has its person.
      expect(await personOf(address), `addFirst=${addFirst}`).to.be.a('string');
      await expectConsistent();
    }
  });

  it('files a contact added while its person is merged under the merged person (either order)', async () => {
    const [a, b] = [await member(app), await member(app)];
    const [boxA, boxB] = [await createEmailAccount(a.fixture.user), await createEmailAccount(b.fixture.user)];
    const people = new PersonRepository(new Sql(ctx.db.sequelize));
    for (const mergeFirst of [true, false]) {
      const [target, source] = [`ciel-${mergeFirst}-${run}@zlucenie-${run}.sk`, `zdroj-${mergeFirst}-${run}@zlucenie-${run}.sk`];
      for (const email of [target, source]) expect((await a.post('/api/contacts', { emailAccountId: boxA.id, email })).status).to.equal(201);
      const [targetId, sourceId] = [(await personOf(target))!, (await personOf(source))!];
      // One side holds its uncommitted change; the other must wait for it, then see it.
      const held = await ctx.db.sequelize.transaction();
      try {
        if (mergeFirst) {
          await people.lock([targetId, sourceId], held);
          await people.merge(targetId, [sourceId], { name: null, phone: null, title: null, tags: [], notes: null, companyId: null }, held);
        } else {
          await ctx.db.sequelize.query('INSERT INTO contacts (user_id, email_account_id, email) VALUES ($1, $2, $3)', { bind: [b.id, boxB.id, source], transaction: held });
        }
        const [{ pid }] = await ctx.db.sequelize.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', { type: QueryTypes.SELECT, transaction: held });
        // A request of the test client is sent when awaited: then() sends it now.
        const pending: Promise<unknown> = mergeFirst
          ? b.post('/api/contacts', { emailAccountId: boxB.id, email: source }).then((r) => r)
          : ctx.db.sequelize.transaction(async (tx) => {
              await people.lock([targetId, sourceId], tx);
              await people.merge(targetId, [sourceId], { name: null, phone: null, title: null, tags: [], notes: null, companyId: null }, tx);
            });
        await untilBlockedBy(pid, 'the other side to wait on the held address');
        await held.commit();
        const answer = await pending;
        if (mergeFirst) expect((answer as { status: number }).status).to.equal(201);
      } finally {
        if (!(held as unknown as { finished?: string }).finished) await held.rollback();
      }
      const [filed] = await ctx.db.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM contacts WHERE email = $1 AND person_id = $2', {
        bind: [source, targetId],
        type: QueryTypes.SELECT,
      });
      expect(filed.n, `mergeFirst=${mergeFirst}: both contacts of the source's address under the target`).to.equal(2);
      await expectConsistent();
    }
  });

  it('files a contact whose address is changed by hand under the new address, and refuses one naming another person', async () => {
    const owner = await member(app);
    const box = await createEmailAccount(owner.fixture.user);
    const [before, after, other] = [`pred-${run}@adresa-${run}.sk`, `po-${run}@adresa-${run}.sk`, `iny-${run}@adresa-${run}.sk`];
    const created = await owner.post('/api/contacts', { emailAccountId: box.id, email: before });
    expect((await owner.post('/api/contacts', { emailAccountId: box.id, email: other })).status).to.equal(201);
    const oldPerson = (await personOf(before))!;
    // As psql would: the old address loses its only contact (row and person go), the new one gets a person.
    await ctx.db.sequelize.query('UPDATE contacts SET email = $2 WHERE id = $1', { bind: [created.body.data.contact.id, after] });
    expect(await personOf(before)).to.equal(undefined);
    const [row] = await ctx.db.sequelize.query<{ person_id: string; people: number }>(
      'SELECT c.person_id::text, (SELECT count(*)::int FROM people WHERE id = $2) AS people FROM contacts c WHERE c.id = $1',
      { bind: [created.body.data.contact.id, oldPerson], type: QueryTypes.SELECT },
    );
    expect(row).to.deep.equal({ person_id: await personOf(after), people: 0 });
    await expectConsistent();
    // A contact can never name another person than its address's: the foreign key refuses it (23503).
    const refused = await ctx.db.sequelize.query('UPDATE contacts SET person_id = $2 WHERE id = $1', { bind: [created.body.data.contact.id, await personOf(other)] }).then(
      () => 'ok',
      (e: { parent?: { code?: string } }) => e.parent?.code,
    );
    expect(refused).to.equal('23503');
  });

  it('gives one person per correspondent when two mailboxes sync the same new senders at the same time', async () => {
    const senders = Array.from({ length: 12 }, (_, i) => ({ name: `Odosielateľ ${i}`, email: `odosielatel-${i}-${run}@sync-${run}.sk` }));
    const accounts: string[] = [];
    for (const prefix of ['ppl-a', 'ppl-b']) {
      const mail = await freshMailUser(prefix);
      for (const [i, from] of senders.entries()) {
        await put(mail, 'INBOX', { from, to: { email: mail.user }, subject: `Správa ${i}`, body: 'Dobrý deň', date: new Date(Date.UTC(2026, 5, 1 + i)) });
      }
      // Stored as link-email stores it, not synced yet: both first syncs run below, together.
      const owner = await crmUser();
      accounts.push((await createEmailAccount(owner.fixture.user, { email: mail.user, password: mail.pass, jmapAccountId: mail.user })).id);
    }
    const outcomes = await Promise.all(accounts.map((id) => ctx.services.mailSync.syncAccount(id)));
    expect(outcomes.map((o) => o.outcome)).to.deep.equal(['ok', 'ok']);
    const people = new Set(await Promise.all(senders.map((s) => personOf(s.email))));
    expect(people.size).to.equal(senders.length);
    expect([...people].every((id) => typeof id === 'string')).to.equal(true);
    await expectConsistent();
  });
});
