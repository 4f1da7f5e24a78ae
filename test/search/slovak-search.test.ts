/**
 * Search that speaks Slovak (issue 49) over HTTP, on Slovak mail written by the DB writers the other
 * suites use (emails through the factory, attachments as the sync inserts them, contacts through the
 * API): word forms with and without diacritics, precision (faktúra never finds fakt), prefixes while
 * typing, exact phrases, the addresses' domains, attachment names, and the one search box with the
 * scoping of the lists it stands for (shares with and without canRead, revocation, API token scopes).
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import type { Contact, EmailAccount } from '../../src/models/index.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createContact, createEmail, createEmailAccount } from '../support/email-factories.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';

describe('search that speaks Slovak', function () {
  this.timeout(120_000);
  const run = randomBytes(4).toString('hex');
  const DOMAIN = `tatralogistika${run}.sk`;
  let app: Express;
  let owner: UserFixture;
  let session: TestSession;
  let account: EmailAccount;
  let contact: Contact;
  const ids: Record<string, string> = {};

  before(async () => {
    app = await testApp();
    owner = await createUser();
    session = await sessionFor(owner);
    account = await createEmailAccount(owner);
    contact = await createContact(account, { email: `jan@mail.${DOMAIN}`, name: 'Ján Kováč' });
    const other = await createContact(account, { email: `eva-${run}@inafirma.sk`, name: 'Eva Nová' });
    const mail = async (key: string, subject: string, body: string, from = other) => {
      ids[key] = (await createEmail(account, from, { subject: `${subject} ${run}`, body })).id;
    };
    await mail('faktury', 'Reklamácia faktúry', 'Faktúra bola vystavená zle.', contact);
    await mail('fakturu', 'Posielame faktúru', 'V prílohe je doklad.');
    await mail('fakturou', 'Spor', 'S faktúrou nesúhlasíme.');
    await mail('fakt', 'Fakt dôležité', 'Je to fakt, nie domnienka.');
    await mail('faktor', 'Faktor rizika', 'Faktory posúdime.');
    await mail('paliet', 'Doprava', 'Prišlo 30 paliet tovaru.');
    await mail('zmluvou', 'Dodatok', 'Podľa zmluvy a s podpísanou zmluvou.');
    await mail('dodaci', 'Tovar', 'Posielame dodací list k objednávke.');
    await mail('listDodaci', 'Tovar', 'Tento list nie je dodací.');
    await mail('attachment', 'Doklad', 'Pozrite si prílohu.');
    const ctx = await testContext();
    // As the sync stores them (mail-store-repository.ts): after the email, in their order.
    await ctx.db.sequelize.query(
      `INSERT INTO email_attachments (email_id, position, blob_id, name, type, size) VALUES ($1, 0, 'B1', 'Faktúra-2026-118.pdf', 'application/pdf', 1000),
         ($1, 1, 'B2', 'preberaci_protokol_2026.xlsx', 'application/vnd.ms-excel', 2000)`,
      { bind: [ids.attachment] },
    );
  });

  /** The ids of this run's emails a search finds through GET /api/emails, by their keys. */
  async function found(search: string): Promise<string[]> {
    const res = await request(app).get('/api/emails').query({ search, limit: 100 }).set('Authorization', session.bearer).expect(200);
    const byId = new Map(Object.entries(ids).map(([k, v]) => [v, k]));
    return (res.body.data.items as Array<{ id: string }>)
      .map((e) => byId.get(e.id))
      .filter((k): k is string => !!k)
      .sort();
  }

  it('finds the other case forms of a word, with or without diacritics, and never an unrelated word that merely starts alike', async () => {
    for (const word of ['faktúra', 'faktura', 'FAKTÚRY', 'faktúrou', 'fakturu']) {
      expect(await found(`${word} ${run}`), word).to.include.members(['faktury', 'fakturu']);
      // Precision: "fakt" (a fact) and "faktor" are other words.
      expect(await found(word), word).to.not.include.members(['fakt']);
      expect(await found(word), word).to.not.include('faktor');
    }
    expect(await found('faktúra')).to.include.members(['faktury', 'fakturu', 'fakturou', 'attachment']);
    expect(await found('palety')).to.deep.equal(['paliet']);
    expect(await found('paleta')).to.deep.equal(['paliet']);
    expect(await found('zmluva')).to.deep.equal(['zmluvou']);
    expect(await found('zmluvami')).to.deep.equal(['zmluvou']);
  });

  it('keeps prefixes while typing: "fakt" finds every word starting with it, "fak" too', async () => {
    expect(await found('fakt')).to.include.members(['fakt', 'faktor', 'faktury', 'fakturu', 'fakturou']);
    expect(await found('paliet')).to.deep.equal(['paliet']);
  });

  it('matches a phrase in quotes exactly: its words in this order, next to each other, no prefixes, no other forms', async () => {
    expect(await found('"dodací list"')).to.deep.equal(['dodaci']);
    expect(await found('"dodaci list"')).to.deep.equal(['dodaci']);
    expect(await found('"list dodací"')).to.deep.equal([]);
    expect(await found('"dodací li"')).to.deep.equal([]);
    // A quoted word is exact: "faktúra" in quotes finds the form faktúra only.
    expect(await found('"faktúra" vystavená')).to.deep.equal(['faktury']);
  });

  it("finds the sender's and the recipients' domains", async () => {
    expect(await found(`tatralogistika${run}`)).to.deep.equal(['faktury']);
    expect(await found(DOMAIN)).to.deep.equal(['faktury']);
    expect(await found(`mail.${DOMAIN}`)).to.deep.equal(['faktury']);
    expect((await found('inafirma.sk')).length).to.equal(Object.keys(ids).length - 1);
    expect(await found(`tatralogistika${run}x`)).to.deep.equal([]);
  });

  it("finds attachments' file names, accents aside", async () => {
    expect(await found('faktúra-2026-118')).to.deep.equal(['attachment']);
    expect(await found('faktura-2026-118')).to.deep.equal(['attachment']);
    expect(await found('Faktúra-2026-118.pdf')).to.deep.equal(['attachment']);
    expect(await found('preberací_protokol')).to.deep.equal(['attachment']);
    expect(await found('faktúra-2026-119')).to.deep.equal([]);
    // A number is itself, never a prefix (migration 0080): "11" is not "118", "2026-118" is.
    expect(await found('faktúra-2026-11')).to.deep.equal([]);
    expect(await found('2026-118')).to.deep.equal(['attachment']);
    expect(await found('118')).to.deep.equal(['attachment']);
  });

  it("counts only the caller's mail in the total, however much of it other users hold", async () => {
    // Another user's mailbox holds the same word forms many times: the index's hits are theirs too.
    const stranger = await createUser();
    const theirs = await createEmailAccount(stranger);
    const sender = await createContact(theirs, { email: `eva-${run}@cudzia-firma.sk`, name: 'Eva' });
    for (let i = 0; i < 6; i++) await createEmail(theirs, sender, { subject: `Zmluvy ${run} ${i}`, body: `Podľa zmluvy ${run}` });
    const search = async (query: string) => (await request(app).get('/api/emails').query({ search: query, limit: 100 }).set('Authorization', session.bearer).expect(200)).body.data;
    const own = await search(`zmluva ${run}`);
    expect(own.items.map((e: { id: string }) => e.id)).to.deep.equal([ids.zmluvou]);
    expect(own.pagination).to.include({ total: 1 });
    // The stranger sees their six and not the owner's one.
    const theirSession = await sessionFor(stranger);
    const seen = await request(app)
      .get('/api/emails')
      .query({ search: `zmluva ${run}` })
      .set('Authorization', theirSession.bearer)
      .expect(200);
    expect(seen.body.data.pagination).to.include({ total: 6 });
    expect(seen.body.data.items.map((e: { id: string }) => e.id)).to.not.include(ids.zmluvou);
  });

  it("rewrites an email's document with its attachments' names when its text changes", async () => {
    const ctx = await testContext();
    await ctx.db.sequelize.query('UPDATE emails SET subject = $2 WHERE id = $1', { bind: [ids.attachment, `Opravený doklad ${run}`] });
    expect(await found('faktúra-2026-118')).to.deep.equal(['attachment']);
    expect(await found('opraveny')).to.deep.equal(['attachment']);
  });
});
