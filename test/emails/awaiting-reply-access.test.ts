import { expect } from 'chai';
import request from 'supertest';
import { crmUser, type CrmUser } from '../sync/helpers.js';
import { awaiting, awaitingItems, awaitingWorld, fromBob, hoursAgo, sync, uniqueSubject, type AwaitingWorld, type Json } from './awaiting-reply-helpers.js';

/**
 * Who sees which awaiting threads (issue 38): the mailboxes the caller may read, own and shared with
 * canRead, exactly as GET /api/emails scopes them; and the 400s of malformed parameters.
 */
describe('emails awaiting a reply: shared mailboxes, other users, malformed parameters', function () {
  this.timeout(120_000);
  let w: AwaitingWorld;
  let member: CrmUser;
  let subject: string;

  const shareWith = (who: CrmUser, body: Record<string, unknown>) =>
    w.owner.as(request(w.app).post(`/api/email-accounts/${w.accountId}/share`)).send({ userId: who.fixture.user.id, role: 'viewer', ...body });
  const subjectsOf = (items: Json[]) => items.map((i) => i.subject as string);
  const emailsAs = (who: CrmUser, query: Record<string, string>) => who.as(request(w.app).get('/api/emails').query(query));

  before(async () => {
    w = await awaitingWorld('awacc');
    subject = uniqueSubject('Zdieľaná');
    await fromBob(w, subject, hoursAgo(3));
    await sync(w);
    member = await crmUser();
  });

  it('a member with canRead sees the shared mailbox’s awaiting threads; after the unshare they are gone (404 with the account id)', async () => {
    expect((await shareWith(member, { canRead: true })).status).to.equal(201);
    expect(subjectsOf(await awaitingItems(w, {}, member))).to.include(subject);
    const byAccount = await awaitingItems(w, { emailAccountId: w.accountId }, member);
    expect(subjectsOf(byAccount)).to.deep.equal(subjectsOf(await awaitingItems(w, { emailAccountId: w.accountId })));

    expect((await w.owner.as(request(w.app).delete(`/api/email-accounts/${w.accountId}/share/${member.fixture.user.id}`))).status).to.equal(200);
    expect(subjectsOf(await awaitingItems(w, {}, member))).to.not.include(subject);
    const gone = await awaiting(w, { emailAccountId: w.accountId }, member);
    expect(gone.status).to.equal(404);
    expect(gone.status).to.equal((await emailsAs(member, { emailAccountId: w.accountId })).status);
  });

  it('a member with canRead false does not see them: left out of the list, 403 with the account id (as GET /api/emails)', async () => {
    const blind = await crmUser();
    expect((await shareWith(blind, { canRead: false })).status).to.equal(201);
    const list = await awaiting(w, {}, blind);
    expect(list.status).to.equal(200);
    expect(list.body.data.items).to.deep.equal([]);
    expect(list.body.data.pagination.total).to.equal(0);
    const filtered = await awaiting(w, { emailAccountId: w.accountId }, blind);
    const asEmails = await emailsAs(blind, { emailAccountId: w.accountId, awaitingReply: 'true' });
    expect(filtered.status).to.equal(403);
    expect(asEmails.status).to.equal(403);
    expect(filtered.body.error).to.deep.equal(asEmails.body.error);
  });

  it('another user’s account id is refused with 404, as GET /api/emails refuses it; an unknown one too', async () => {
    const stranger = await crmUser();
    const res = await awaiting(w, { emailAccountId: w.accountId }, stranger);
    expect(res.status).to.equal(404);
    const asEmails = await emailsAs(stranger, { emailAccountId: w.accountId });
    expect(res.body.error).to.deep.equal(asEmails.body.error);
    expect(res.body.message).to.equal(asEmails.body.message);
    expect(subjectsOf(await awaitingItems(w, {}, stranger))).to.deep.equal([]);
    expect((await awaiting(w, { emailAccountId: '00000000-0000-4000-8000-000000000000' })).status).to.equal(404);
  });

  it('refuses malformed parameters with a 400 and a Slovak message', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ olderThanHours: 'abc' }, 'olderThanHours'],
      [{ olderThanHours: '-1' }, 'olderThanHours'],
      [{ olderThanHours: '1.5' }, 'olderThanHours'],
      [{ olderThanHours: '100000' }, 'olderThanHours'],
      [{ emailAccountId: 'nie-uuid' }, 'emailAccountId'],
      [{ page: '0' }, 'page'],
      [{ limit: '101' }, 'limit'],
      [{ sort: 'newest' }, 'sort'],
    ];
    for (const [query, field] of cases) {
      const res = await w.owner.as(request(w.app).get('/api/emails/awaiting-reply').query(query));
      expect(res.status, JSON.stringify(query)).to.equal(400);
      expect(res.body.success).to.equal(false);
      expect(
        (res.body.error.details as Array<{ field: string }>).map((d) => d.field),
        JSON.stringify(res.body),
      ).to.include(field);
    }
    const hours = await w.owner.as(request(w.app).get('/api/emails/awaiting-reply').query({ olderThanHours: 'abc' }));
    expect(JSON.stringify(hours.body.error.details)).to.contain('olderThanHours musí byť celé číslo od 0 do 87600');
    const flag = await w.owner.as(request(w.app).get('/api/emails').query({ awaitingReply: 'snáď' }));
    expect(flag.status).to.equal(400);
    expect(JSON.stringify(flag.body.error.details)).to.contain('Očakáva sa true alebo false');
  });
});
