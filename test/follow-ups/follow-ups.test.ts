import { expect } from 'chai';
import crypto from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../src/app/context.js';
import { createContact, createEmailAccount } from '../support/email-factories.js';
import { testApp, testContext } from '../support/harness.js';
import { followUpBox, inMinutes, listFollowUps, putFollowUp, type FollowUpBox } from './helpers.js';

/**
 * PUT / DELETE /api/contacts/{id}/follow-up and GET /api/follow-ups over HTTP: one follow-up per
 * contact and user, replaced by a PUT; private to its owner; a contact the caller may not see is a 404;
 * strict bodies with Slovak messages.
 */
describe('follow-ups: set, replace, list, delete', function () {
  this.timeout(30_000);
  let app: Express;
  let ctx: AppContext;
  let box: FollowUpBox;

  const rowsOf = async (contactId: string) =>
    ctx.db.sequelize.query<{ user_id: string }>('SELECT user_id FROM follow_ups WHERE contact_id = $1', { bind: [contactId], type: QueryTypes.SELECT });

  before(async () => {
    app = await testApp();
    ctx = await testContext();
  });

  beforeEach(async () => {
    box = await followUpBox(app);
  });

  it('PUT creates a follow-up and answers it with the contact, status and answered', async () => {
    const dueAt = '2030-05-04T09:00:00+02:00';
    const res = await putFollowUp(app, box.owner, box.contact.id, { dueAt, note: '  Zavolať ohľadom ponuky  ' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const f = res.body.data.followUp;
    expect(f.contactId).to.equal(box.contact.id);
    expect(f.contact).to.deep.equal({ id: box.contact.id, emailAccountId: box.account.id, email: box.contact.email, name: 'Alžbeta Klientová' });
    expect(f.dueAt).to.equal('2030-05-04T07:00:00.000Z');
    expect(f.note).to.equal('Zavolať ohľadom ponuky');
    expect(f).to.include({ status: 'upcoming', answered: false, notifiedAt: null });
  });

  it('PUT again replaces the follow-up: one row, the same id, the new time and note', async () => {
    const first = await putFollowUp(app, box.owner, box.contact.id, { dueAt: inMinutes(60), note: 'prvá' });
    const second = await putFollowUp(app, box.owner, box.contact.id, { dueAt: inMinutes(-5), note: null });
    expect(second.status, JSON.stringify(second.body)).to.equal(200);
    expect(second.body.data.followUp.id).to.equal(first.body.data.followUp.id);
    expect(second.body.data.followUp).to.include({ note: null, status: 'due' });
    expect(await rowsOf(box.contact.id)).to.have.length(1);
  });

  it('GET lists by status: due (dueAt <= now), upcoming (dueAt > now), all (the default), by dueAt', async () => {
    const later = await createContact(box.account, { name: 'Neskôr' });
    const past = await createContact(box.account, { name: 'Skôr' });
    await putFollowUp(app, box.owner, box.contact.id, { dueAt: inMinutes(-1) }).expect(200);
    await putFollowUp(app, box.owner, later.id, { dueAt: inMinutes(120) }).expect(200);
    await putFollowUp(app, box.owner, past.id, { dueAt: inMinutes(-60) }).expect(200);
    const ids = async (query: string) => {
      const res = await listFollowUps(app, box.owner, query);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return (res.body.data.items as Array<{ contactId: string }>).map((i) => i.contactId);
    };
    expect(await ids('?status=due')).to.deep.equal([past.id, box.contact.id]);
    expect(await ids('?status=upcoming')).to.deep.equal([later.id]);
    expect(await ids('')).to.deep.equal([past.id, box.contact.id, later.id]);
    const page = await listFollowUps(app, box.owner, '?status=all&page=2&limit=2');
    expect(page.body.data.items.map((i: { contactId: string }) => i.contactId)).to.deep.equal([later.id]);
    expect(page.body.data.pagination).to.include({ page: 2, limit: 2, total: 3, hasNext: false });
  });

  it('GET ?contactId= lists only my follow-up of that contact; a contact I may not see is a 404', async () => {
    const other = await createContact(box.account, { name: 'Iný' });
    const quiet = await createContact(box.account, { name: 'Bez pripomienky' });
    await putFollowUp(app, box.owner, box.contact.id, { dueAt: inMinutes(30) }).expect(200);
    await putFollowUp(app, box.owner, other.id, { dueAt: inMinutes(10) }).expect(200);
    // A colleague's follow-up of the same contact stays theirs.
    await putFollowUp(app, box.editor, box.contact.id, { dueAt: inMinutes(5) }).expect(200);
    const mine = await listFollowUps(app, box.owner, `?contactId=${box.contact.id}`);
    expect(mine.status, JSON.stringify(mine.body)).to.equal(200);
    expect(mine.body.data.items.map((i: { contactId: string }) => i.contactId)).to.deep.equal([box.contact.id]);
    expect(mine.body.data.pagination).to.include({ total: 1 });
    const upcoming = await listFollowUps(app, box.owner, `?contactId=${other.id}&status=due`);
    expect(upcoming.body.data.items).to.deep.equal([]);
    const none = await listFollowUps(app, box.owner, `?contactId=${quiet.id}`);
    expect(none.status).to.equal(200);
    expect(none.body.data.items).to.deep.equal([]);
    const outsider = await listFollowUps(app, box.outsider, `?contactId=${box.contact.id}`);
    expect(outsider.status).to.equal(404);
    expect(outsider.body.error.message).to.equal('Kontakt neexistuje');
    expect((await listFollowUps(app, box.owner, '?contactId=nie-uuid')).status).to.equal(400);
  });

  it('DELETE removes the follow-up (204), then 404 when there is none', async () => {
    await putFollowUp(app, box.owner, box.contact.id, { dueAt: inMinutes(10) }).expect(200);
    const del = await box.owner.as(request(app).delete(`/api/contacts/${box.contact.id}/follow-up`));
    expect(del.status).to.equal(204);
    expect(del.text).to.equal('');
    expect(await rowsOf(box.contact.id)).to.have.length(0);
    const again = await box.owner.as(request(app).delete(`/api/contacts/${box.contact.id}/follow-up`));
    expect(again.status).to.equal(404);
    expect(again.body.error.message).to.equal('Pripomienka pre tento kontakt neexistuje');
  });

  it("404 for another user's contact and an unknown id, 400 for a malformed id, and nothing is stored", async () => {
    const strangerAccount = await createEmailAccount(box.outsider.fixture.user);
    const strangers = await createContact(strangerAccount);
    for (const id of [strangers.id, crypto.randomUUID()]) {
      const put = await putFollowUp(app, box.owner, id, { dueAt: inMinutes(5) });
      expect(put.status, id).to.equal(404);
      expect(put.body.error.message).to.equal('Kontakt neexistuje');
      expect((await box.owner.as(request(app).delete(`/api/contacts/${id}/follow-up`))).status).to.equal(404);
    }
    expect(await rowsOf(strangers.id)).to.have.length(0);
    const malformed = await putFollowUp(app, box.owner, 'not-a-uuid', { dueAt: inMinutes(5) });
    expect(malformed.status).to.equal(400);
    expect(malformed.body.error.code).to.equal('validation_failed');
    expect((await box.owner.as(request(app).delete('/api/contacts/not-a-uuid/follow-up'))).status).to.equal(400);
  });

  it('a second member of the shared mailbox neither sees nor deletes mine; theirs is their own', async () => {
    const mine = await putFollowUp(app, box.owner, box.contact.id, { dueAt: inMinutes(-1), note: 'moja' });
    expect(mine.status).to.equal(200);
    const editorList = await listFollowUps(app, box.editor, '?status=all');
    expect(editorList.body.data.items).to.deep.equal([]);
    expect((await box.editor.as(request(app).delete(`/api/contacts/${box.contact.id}/follow-up`))).status).to.equal(404);
    // A viewer may remind themselves too: a follow-up changes nothing of the contact.
    const theirs = await putFollowUp(app, box.viewer, box.contact.id, { dueAt: inMinutes(30), note: 'jeho' });
    expect(theirs.status, JSON.stringify(theirs.body)).to.equal(200);
    expect(theirs.body.data.followUp.id).to.not.equal(mine.body.data.followUp.id);
    const ownerList = await listFollowUps(app, box.owner);
    expect(ownerList.body.data.items.map((i: { note: string }) => i.note)).to.deep.equal(['moja']);
    expect(await rowsOf(box.contact.id)).to.have.length(2);
  });

  it("revoking the share hides the member's follow-up and refuses new ones (404); re-sharing shows it again", async () => {
    await putFollowUp(app, box.editor, box.contact.id, { dueAt: inMinutes(-1) }).expect(200);
    const revoked = await box.owner.as(request(app).delete(`/api/email-accounts/${box.account.id}/share/${box.editor.fixture.user.id}`));
    expect(revoked.status, JSON.stringify(revoked.body)).to.equal(200);
    expect((await listFollowUps(app, box.editor)).body.data.items).to.deep.equal([]);
    expect((await putFollowUp(app, box.editor, box.contact.id, { dueAt: inMinutes(5) })).status).to.equal(404);
    expect((await box.editor.as(request(app).delete(`/api/contacts/${box.contact.id}/follow-up`))).status).to.equal(404);
    await box.owner
      .as(request(app).post(`/api/email-accounts/${box.account.id}/share`))
      .send({ userId: box.editor.fixture.user.id, role: 'viewer' })
      .expect(201);
    expect((await listFollowUps(app, box.editor)).body.data.items).to.have.length(1);
  });

  it('the follow-up goes with its contact (deleted by hand) and with its user', async () => {
    await putFollowUp(app, box.owner, box.contact.id, { dueAt: inMinutes(5) }).expect(200);
    await putFollowUp(app, box.editor, box.contact.id, { dueAt: inMinutes(5) }).expect(200);
    await ctx.db.sequelize.query('DELETE FROM users WHERE id = $1', { bind: [box.editor.fixture.user.id] });
    expect(await rowsOf(box.contact.id)).to.deep.equal([{ user_id: box.owner.fixture.user.id }]);
    const deleted = await box.owner.as(request(app).delete(`/api/contacts/${box.contact.id}`));
    expect(deleted.status, JSON.stringify(deleted.body)).to.equal(200);
    expect(await rowsOf(box.contact.id)).to.have.length(0);
  });

  describe('refuses malformed requests with the 400 envelope in Slovak, storing nothing', () => {
    const cases: Array<[string, unknown, string]> = [
      ['no dueAt', { note: 'x' }, 'dueAt'],
      ['a date without time', { dueAt: '2030-05-04' }, 'dueAt'],
      ['a time without offset', { dueAt: '2030-05-04T09:00:00' }, 'dueAt'],
      ['not a date', { dueAt: 'zajtra' }, 'dueAt'],
      ['an impossible date', { dueAt: '2030-02-31T09:00:00Z' }, 'dueAt'],
      ['a year beyond 2099', { dueAt: '2999-01-01T00:00:00Z' }, 'dueAt'],
      ['a number for dueAt', { dueAt: 1_900_000_000_000 }, 'dueAt'],
      ['a note of 2001 characters', { dueAt: '2030-05-04T09:00:00Z', note: 'a'.repeat(2001) }, 'note'],
      ['a number for note', { dueAt: '2030-05-04T09:00:00Z', note: 42 }, 'note'],
      ['an unknown field', { dueAt: '2030-05-04T09:00:00Z', remindMe: true }, ''],
      ['an array body', [], ''],
    ];
    for (const [what, body, field] of cases) {
      it(what, async () => {
        const res = await putFollowUp(app, box.owner, box.contact.id, body as Record<string, unknown>);
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.success).to.equal(false);
        expect(res.body.error.message).to.match(/[áäčďéíĺľňóôŕšťúýž]|Neplatn|musí|povinn/i);
        if (field) expect(JSON.stringify(res.body.error)).to.contain(field);
        expect(await rowsOf(box.contact.id)).to.have.length(0);
      });
    }

    it('a list status other than due, upcoming or all', async () => {
      const res = await listFollowUps(app, box.owner, '?status=overdue');
      expect(res.status).to.equal(400);
      expect(JSON.stringify(res.body.error)).to.contain('status musí byť due, upcoming alebo all');
    });

    it('no authentication: 401 on every route', async () => {
      expect((await request(app).get('/api/follow-ups')).status).to.equal(401);
      expect(
        (
          await request(app)
            .put(`/api/contacts/${box.contact.id}/follow-up`)
            .send({ dueAt: inMinutes(5) })
        ).status,
      ).to.equal(401);
      expect((await request(app).delete(`/api/contacts/${box.contact.id}/follow-up`)).status).to.equal(401);
      expect(await rowsOf(box.contact.id)).to.have.length(0);
    });
  });
});
