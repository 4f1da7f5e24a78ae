import { expect } from 'chai';
import request from 'supertest';
import { emailIdByMessageId, emailSet, jmapAs } from '../sync/helpers.js';
import {
  aliceRepliesElsewhere,
  awaitingItems,
  awaitingSubjects,
  awaitingWorld,
  fromBob,
  hoursAgo,
  sync,
  uniqueSubject,
  type AwaitingWorld,
  type Json,
} from './awaiting-reply-helpers.js';

/**
 * GET /api/emails/awaiting-reply (issue 38, docs/adr/0118-awaiting-reply.md) over HTTP on a mailbox
 * synced from the real Cyrus: threads whose newest email came from outside and was not answered.
 */
describe('emails awaiting a reply', function () {
  this.timeout(120_000);
  let w: AwaitingWorld;

  before(async () => {
    w = await awaitingWorld('await');
  });

  it('lists an inbound-only thread once, as its newest inbound email, with waitingSince = that email’s date', async () => {
    const subject = uniqueSubject('Dopyt');
    const newest = hoursAgo(4);
    const first = await fromBob(w, subject, hoursAgo(5));
    await fromBob(w, `Re: ${subject}`, newest, first);
    await sync(w);
    const items = (await awaitingItems(w)).filter((i) => (i.subject as string).endsWith(subject));
    expect(items.map((i) => i.subject)).to.deep.equal([`Re: ${subject}`]);
    const [item] = items;
    expect(item.waitingSince).to.equal(newest.toISOString());
    expect(item.waitingSince).to.equal(item.date);
    expect(item).to.include({ emailAccountId: w.accountId });
    expect(item.from).to.deep.equal([{ name: 'Bob Klient', email: w.bob.user }]);
    expect(item).to.have.property('preview');
  });

  it('leaves out a thread whose newest email went out, and lists one where bob wrote again after the answer', async () => {
    const answered = uniqueSubject('Zodpovedané');
    const question = await fromBob(w, answered, hoursAgo(9));
    await aliceRepliesElsewhere(w, `Re: ${answered}`, hoursAgo(8), question);
    const again = uniqueSubject('Znova');
    const q1 = await fromBob(w, again, hoursAgo(9));
    const a1 = await aliceRepliesElsewhere(w, `Re: ${again}`, hoursAgo(8), q1);
    const wroteAgain = hoursAgo(1);
    await fromBob(w, `Re: ${again}`, wroteAgain, [q1, a1]);
    await sync(w);
    const items = await awaitingItems(w);
    expect(items.map((i) => i.subject)).to.not.include(`Re: ${answered}`);
    expect(items.map((i) => i.subject)).to.not.include(answered);
    const back = items.filter((i) => (i.subject as string).endsWith(again));
    expect(back).to.have.length(1);
    expect(back[0].waitingSince).to.equal(wroteAgain.toISOString());
  });

  it('orders oldest waiting first, and olderThanHours keeps those waiting at least that long', async () => {
    const tag = uniqueSubject('Poradie');
    await fromBob(w, `${tag} stredná`, hoursAgo(30));
    await fromBob(w, `${tag} najnovšia`, hoursAgo(2));
    await fromBob(w, `${tag} najstaršia`, hoursAgo(50));
    await sync(w);
    const mine = (list: string[]) => list.filter((s) => s.startsWith(tag));
    expect(mine(await awaitingSubjects(w))).to.deep.equal([`${tag} najstaršia`, `${tag} stredná`, `${tag} najnovšia`]);
    expect(mine(await awaitingSubjects(w, { olderThanHours: 24 }))).to.deep.equal([`${tag} najstaršia`, `${tag} stredná`]);
    expect(mine(await awaitingSubjects(w, { olderThanHours: 40 }))).to.deep.equal([`${tag} najstaršia`]);
    expect(mine(await awaitingSubjects(w, { olderThanHours: 0 }))).to.have.length(3);
    // Paging keeps the order: one item a page.
    const all = await awaitingSubjects(w);
    const paged: string[] = [];
    for (let page = 1; page <= all.length; page++) {
      const res = await w.owner.as(request(w.app).get('/api/emails/awaiting-reply').query({ page, limit: 1 }));
      expect(res.body.data.pagination).to.include({ page, limit: 1, total: all.length });
      paged.push(res.body.data.items[0].subject);
    }
    expect(paged).to.deep.equal(all);
  });

  it('a reply through the CRM takes the thread off at once (no sync in between); bob’s next message puts it back', async () => {
    const subject = uniqueSubject('Otázka');
    await fromBob(w, subject, hoursAgo(3));
    await sync(w);
    const [item] = (await awaitingItems(w)).filter((i) => i.subject === subject);
    expect(item, 'listed before the reply').to.exist;

    const reply = await w.owner.as(request(w.app).post(`/api/emails/${item.id}/reply`)).send({ text: 'Áno, posielam ponuku.' });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    expect(reply.body.data.email.threadId).to.equal(item.threadId);
    expect((await awaitingItems(w)).map((i) => i.id)).to.not.include(item.id);
    const filtered = await w.owner.as(request(w.app).get('/api/emails').query({ awaitingReply: 'true', limit: 100 }));
    expect((filtered.body.data.items as Json[]).map((i) => i.id)).to.not.include(item.id);

    // Bob answers the reply (later than it): the thread waits again, from his new message.
    const later = new Date(Math.ceil((Date.now() + 5000) / 1000) * 1000);
    await fromBob(w, `Re: ${subject}`, later, [reply.body.data.sent.messageId]);
    await sync(w);
    const back = (await awaitingItems(w)).filter((i) => i.threadId === item.threadId);
    expect(back.map((i) => i.subject)).to.deep.equal([`Re: ${subject}`]);
    expect(back[0].waitingSince).to.equal(later.toISOString());
  });

  it('a reply from another mail client (Sent mailbox on the server) takes the thread off after the sync', async () => {
    const subject = uniqueSubject('Iný klient');
    const question = await fromBob(w, subject, hoursAgo(6));
    await sync(w);
    expect(await awaitingSubjects(w)).to.include(subject);
    await aliceRepliesElsewhere(w, `Re: ${subject}`, hoursAgo(1), question);
    // Not yet synced: the CRM cannot know about it.
    expect(await awaitingSubjects(w)).to.include(subject);
    await sync(w);
    expect(await awaitingSubjects(w)).to.not.include(subject);
  });

  it('a thread whose newest inbound email is destroyed on the server falls back to what is left after the sync', async () => {
    const subject = uniqueSubject('Zmazané');
    const question = await fromBob(w, subject, hoursAgo(7));
    const answer = await aliceRepliesElsewhere(w, `Re: ${subject}`, hoursAgo(6), question);
    const followUp = await fromBob(w, `Re: ${subject}`, hoursAgo(5), [question, answer]);
    await sync(w);
    const [item] = (await awaitingItems(w)).filter((i) => (i.subject as string).endsWith(subject));
    expect(item).to.include({ subject: `Re: ${subject}` });
    const client = jmapAs(w.alice);
    await emailSet(client, { destroy: [await emailIdByMessageId(client, followUp)] });
    await sync(w);
    // What is left: bob's question answered by alice.
    expect((await awaitingItems(w)).filter((i) => (i.subject as string).endsWith(subject))).to.deep.equal([]);
  });

  it('an email whose direction the sync corrects (found in Sent by a later full sync) moves its thread on and off the list', async () => {
    const subject = uniqueSubject('Smer');
    await fromBob(w, subject, hoursAgo(4));
    await sync(w);
    const [item] = (await awaitingItems(w)).filter((i) => i.subject === subject);
    expect(item).to.exist;
    // The sync's upsert writes outbound like this when the mapper's answer changed.
    const setOutbound = (value: boolean) => w.ctx.db.sequelize.query('UPDATE emails SET outbound = $2 WHERE id = $1', { bind: [item.id, value] });
    await setOutbound(true);
    expect((await awaitingItems(w)).map((i) => i.id)).to.not.include(item.id);
    await setOutbound(false);
    expect((await awaitingItems(w)).map((i) => i.id)).to.include(item.id);
  });

  it('GET /api/emails?awaitingReply=true gives the same set, combinable with the other filters', async () => {
    const subject = uniqueSubject('Kombinácia');
    await fromBob(w, subject, hoursAgo(12));
    await sync(w);
    const endpoint = await awaitingItems(w);
    const asFilter = await w.owner.as(request(w.app).get('/api/emails').query({ awaitingReply: 'true', sort: 'oldest', limit: 100 }));
    expect(asFilter.status).to.equal(200);
    expect((asFilter.body.data.items as Json[]).map((i) => i.id)).to.deep.equal(endpoint.map((i) => i.id));
    expect(asFilter.body.data.pagination.total).to.equal(endpoint.length);
    const newest = await w.owner.as(request(w.app).get('/api/emails').query({ awaitingReply: 'true', limit: 100 }));
    expect((newest.body.data.items as Json[]).map((i) => i.id)).to.deep.equal(endpoint.map((i) => i.id).reverse());
    const all = await w.owner.as(request(w.app).get('/api/emails').query({ awaitingReply: 'false', limit: 100 }));
    expect(all.body.data.pagination.total).to.be.greaterThan(endpoint.length);

    const word = subject.split(' ').pop()!;
    const searched = await w.owner.as(request(w.app).get('/api/emails').query({ awaitingReply: 'true', search: word }));
    expect((searched.body.data.items as Json[]).map((i) => i.subject)).to.deep.equal([subject]);
    const item = endpoint.find((i) => i.subject === subject)!;
    const byContact = await w.owner.as(request(w.app).get('/api/emails').query({ awaitingReply: 'true', contactId: item.contactId, limit: 100 }));
    expect((byContact.body.data.items as Json[]).map((i) => i.id).sort()).to.deep.equal(
      endpoint
        .filter((i) => i.contactId === item.contactId)
        .map((i) => i.id)
        .sort(),
    );
    const unread = await w.owner.as(request(w.app).get('/api/emails').query({ awaitingReply: 'true', unread: 'true', emailAccountId: w.accountId, limit: 100 }));
    expect((unread.body.data.items as Json[]).map((i) => i.id).sort()).to.deep.equal(
      endpoint
        .filter((i) => !i.isRead)
        .map((i) => i.id)
        .sort(),
    );
    const ranged = await w.owner.as(
      request(w.app)
        .get('/api/emails')
        .query({ awaitingReply: 'true', from: hoursAgo(13).toISOString(), to: hoursAgo(11).toISOString() }),
    );
    expect((ranged.body.data.items as Json[]).map((i) => i.subject)).to.deep.equal([subject]);
  });
});
