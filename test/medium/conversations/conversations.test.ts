import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { sharedMailbox, share, ALICE, type SharedMailbox } from '../../sharing/helpers.js';
import { crmUser, put, type CrmUser } from '../../sync/helpers.js';
import { SseClient, type SseEvent } from '../../support/sse-client.js';
import { createEmailAccount } from '../../support/email-factories.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The team inbox over HTTP against the real PostgreSQL and Cyrus: one shared mailbox with its owner,
 * an editor, a viewer and an outsider (sharing/helpers.ts); conversations, per-member read state,
 * assignment and status, reopen on inbound, internal comments with mentions, and the live events.
 */
describe('team inbox: conversations, per-member read state, assignment, comments', function () {
  this.timeout(120_000);
  let box: SharedMailbox;
  let server: http.Server;
  let base: string;
  const open: SseClient[] = [];
  const me = () => ({ name: 'Tímová schránka', email: box.mail.user });
  const messageId = () => `${randomBytes(8).toString('hex')}@inbox.test`;

  const list = async (who: CrmUser, query: Record<string, string> = {}): Promise<Json[]> => {
    const res = await who.as(request(box.app).get('/api/conversations')).query({ emailAccountId: box.accountId, limit: '100', ...query });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data.items as Json[];
  };
  const bySubject = async (who: CrmUser, subject: string, query: Record<string, string> = {}): Promise<Json | undefined> =>
    (await list(who, { status: 'all', ...query })).find((c) => c.subject === subject);
  const patch = (who: CrmUser, id: string, body: unknown) => who.as(request(box.app).patch(`/api/conversations/${id}`)).send(body as object);
  const sync = async () => expect((await box.ctx.services.mailSync.syncAccount(box.accountId)).outcome).to.equal('ok');
  const stream = async (who: CrmUser) => {
    const client = await SseClient.open(`${base}/api/events`, { Authorization: who.session.bearer });
    open.push(client);
    return client;
  };
  /** A new thread from Alice, synced; answers its conversation (as the owner sees it). */
  const newThread = async (subject: string, id = messageId()) => {
    await put(box.mail, 'INBOX', { from: ALICE, to: me(), subject, body: `Text ${subject}`, messageId: id, date: new Date(Date.now() - 60_000) });
    await sync();
    const found = await bySubject(box.owner, subject);
    expect(found, subject).to.not.equal(undefined);
    return found!;
  };

  before(async () => {
    box = await sharedMailbox('conv');
    server = http.createServer(box.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(() => {
    for (const client of open.splice(0)) client.close();
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('lists one conversation per thread for every reader, with the fields of the contract; an outsider sees none and gets 404s', async () => {
    const owner = await list(box.owner, { status: 'all' });
    expect(owner.map((c) => c.subject)).to.include.members(['Objednávka 1', 'Objednávka 2', 'Faktúra']);
    const item = owner.find((c) => c.subject === 'Faktúra')!;
    expect(item).to.include({ emailAccountId: box.accountId, messageCount: 1, lastDirection: 'inbound', status: 'open', assignee: null });
    expect(item.participants).to.deep.equal([{ email: 'bob@vendor.example', name: 'Bob Dodávateľ' }]);
    expect(item.waitingSince).to.be.a('string');
    expect((await list(box.editor, { status: 'all' })).map((c) => c.id)).to.have.members(owner.map((c) => c.id));
    expect((await list(box.viewer, { status: 'all' })).map((c) => c.id)).to.have.members(owner.map((c) => c.id));

    const outsiderList = await box.outsider.as(request(box.app).get('/api/conversations'));
    expect(outsiderList.status).to.equal(200);
    expect(outsiderList.body.data.items.map((c: Json) => c.id)).to.not.include(item.id);
    expect((await box.outsider.as(request(box.app).get('/api/conversations')).query({ emailAccountId: box.accountId })).status).to.equal(404);
    for (const res of [
      await box.outsider.as(request(box.app).get(`/api/conversations/${item.id}`)),
      await patch(box.outsider, item.id, { status: 'done' }),
      await box.outsider.as(request(box.app).post(`/api/conversations/${item.id}/read`)),
      await box.outsider.as(request(box.app).post(`/api/conversations/${item.id}/comments`)).send({ text: 'ahoj' }),
    ]) {
      expect(res.status).to.equal(404);
      expect(res.body.error.message).to.equal('Konverzácia neexistuje');
    }
    expect((await bySubject(box.owner, 'Faktúra'))!.status).to.equal('open');
  });

  it('keeps read state per member: the editor reading a thread leaves it unread for the owner and the viewer', async () => {
    const subject = `Reklamácia ${randomBytes(3).toString('hex')}`;
    const conversation = await newThread(subject);
    expect(conversation.unreadCount).to.equal(1);
    const read = await box.editor.as(request(box.app).post(`/api/conversations/${conversation.id}/read`));
    expect(read.status, JSON.stringify(read.body)).to.equal(200);
    expect(read.body.data.conversation.unreadCount).to.equal(0);
    expect((await bySubject(box.editor, subject))!.unreadCount).to.equal(0);
    expect((await bySubject(box.owner, subject))!.unreadCount).to.equal(1);
    expect((await bySubject(box.viewer, subject))!.unreadCount).to.equal(1);
    expect((await list(box.editor, { unread: 'true' })).map((c) => c.id)).to.not.include(conversation.id);
    expect((await list(box.owner, { unread: 'true' })).map((c) => c.id)).to.include(conversation.id);
    // The mailbox's flag (the email's isRead) is the owner's: a member's read leaves it alone.
    const email = await box.owner.as(request(box.app).get('/api/emails')).query({ emailAccountId: box.accountId, threadId: conversation.threadId });
    expect(email.body.data.items.map((e: Json) => e.isRead)).to.deep.equal([false]);

    // The owner's read sets the mailbox's flag as well.
    expect((await box.owner.as(request(box.app).post(`/api/conversations/${conversation.id}/read`))).status).to.equal(200);
    expect((await bySubject(box.owner, subject))!.unreadCount).to.equal(0);
    expect((await bySubject(box.viewer, subject))!.unreadCount).to.equal(1);
    const after = await box.owner.as(request(box.app).get('/api/emails')).query({ emailAccountId: box.accountId, threadId: conversation.threadId });
    expect(after.body.data.items.map((e: Json) => e.isRead)).to.deep.equal([true]);
  });

  it('assigns by owner or editor (viewer 403), only to someone who can read the mailbox (400, nothing changed); audited', async () => {
    const subject = `Ponuka ${randomBytes(3).toString('hex')}`;
    const { id } = await newThread(subject);
    expect((await patch(box.viewer, id, { assigneeId: box.viewer.fixture.user.id })).status).to.equal(403);

    const stranger = await patch(box.editor, id, { assigneeId: box.outsider.fixture.user.id });
    expect(stranger.status).to.equal(400);
    expect(stranger.body.error.message).to.match(/prideliť/);
    const blind = await crmUser();
    expect((await share(box, blind, { role: 'viewer', canRead: false })).status).to.equal(201);
    expect((await patch(box.editor, id, { assigneeId: blind.fixture.user.id, status: 'done' })).status).to.equal(400);
    expect((await bySubject(box.owner, subject))!).to.include({ assignee: null, status: 'open' });

    const assigned = await patch(box.editor, id, { assigneeId: box.viewer.fixture.user.id });
    expect(assigned.status, JSON.stringify(assigned.body)).to.equal(200);
    expect(assigned.body.data.conversation.assignee).to.include({ id: box.viewer.fixture.user.id, username: box.viewer.fixture.username });
    expect((await list(box.viewer, { assignee: 'me' })).map((c) => c.id)).to.include(id);
    expect((await list(box.owner, { assignee: box.viewer.fixture.user.id })).map((c) => c.id)).to.deep.equal([id]);
    expect((await list(box.owner, { assignee: 'none' })).map((c) => c.id)).to.not.include(id);

    const [audit] = await box.ctx.db.sequelize.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_logs WHERE action = 'conversation.updated' AND details->>'conversationId' = $1 AND user_id = $2`,
      { bind: [id, box.editor.fixture.user.id], type: QueryTypes.SELECT },
    );
    expect(audit.n).to.equal(1);

    // A disabled user cannot be given a conversation.
    const leaver = await crmUser();
    expect((await share(box, leaver, { role: 'viewer' })).status).to.equal(201);
    await box.ctx.services.userLifecycle.disable(leaver.fixture.user.id, { actor: 'test' });
    expect((await patch(box.owner, id, { assigneeId: leaver.fixture.user.id })).status).to.equal(400);
    expect((await patch(box.owner, id, { assigneeId: null })).body.data.conversation.assignee).to.equal(null);
  });

  it('an assignee who loses the right to read the mailbox is no longer the assignee', async () => {
    const { id } = await newThread(`Odovzdanie ${randomBytes(3).toString('hex')}`);
    const helper = await crmUser();
    expect((await share(box, helper, { role: 'viewer' })).status).to.equal(201);
    expect((await patch(box.owner, id, { assigneeId: helper.fixture.user.id })).status).to.equal(200);
    const unshared = await box.owner.as(request(box.app).delete(`/api/email-accounts/${box.accountId}/share/${helper.fixture.user.id}`));
    expect(unshared.status).to.equal(200);
    const after = await box.owner.as(request(box.app).get(`/api/conversations/${id}`));
    expect(after.body.data.conversation.assignee).to.equal(null);
  });

  it('done takes the thread off awaiting-reply; new inbound mail in it reopens it', async () => {
    const subject = `Zmluva ${randomBytes(3).toString('hex')}`;
    const first = messageId();
    const { id } = await newThread(subject, first);
    const awaitingIds = async () =>
      ((await box.owner.as(request(box.app).get('/api/emails/awaiting-reply')).query({ emailAccountId: box.accountId, limit: '100' })).body.data.items as Json[]).map(
        (e) => e.subject as string,
      );
    expect(await awaitingIds()).to.include(subject);
    const done = await patch(box.owner, id, { status: 'done' });
    expect(done.body.data.conversation).to.include({ status: 'done', waitingSince: null });
    expect(await awaitingIds()).to.not.include(subject);
    expect((await list(box.owner)).map((c) => c.id)).to.not.include(id);
    expect((await list(box.owner, { status: 'done' })).map((c) => c.id)).to.include(id);

    await put(box.mail, 'INBOX', { from: ALICE, to: me(), subject: `Re: ${subject}`, body: 'Ešte jedna otázka.', messageId: messageId(), inReplyTo: first, date: new Date() });
    await sync();
    const reopened = (await box.owner.as(request(box.app).get(`/api/conversations/${id}`))).body.data;
    expect(reopened.conversation).to.include({ status: 'open', messageCount: 2 });
    expect(reopened.messages.map((m: Json) => m.subject)).to.deep.equal([subject, `Re: ${subject}`]);
    expect(await awaitingIds()).to.include(`Re: ${subject}`);
  });

  it('a reply from the CRM is an outbound email and makes the conversation’s last direction outbound', async () => {
    const subject = `Otázka ${randomBytes(3).toString('hex')}`;
    const conversation = await newThread(subject);
    const emails = await box.owner.as(request(box.app).get('/api/emails')).query({ threadId: conversation.threadId });
    expect(emails.body.data.items.map((e: Json) => e.direction)).to.deep.equal(['inbound']);
    const reply = await box.owner.as(request(box.app).post(`/api/emails/${emails.body.data.items[0].id}/reply`)).send({ text: 'Dobrý deň, odpovedáme.' });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    const after = (await box.owner.as(request(box.app).get(`/api/conversations/${conversation.id}`))).body.data;
    expect(after.conversation).to.include({ lastDirection: 'outbound', messageCount: 2, waitingSince: null });
    expect(after.messages.map((m: Json) => m.direction)).to.deep.equal(['inbound', 'outbound']);
  });

  it('comments: any reader comments; @mentions reach only the mentioned reader; only the author deletes', async () => {
    const { id } = await newThread(`Dodávka ${randomBytes(3).toString('hex')}`);
    const [viewerEvents, ownerEvents] = [await stream(box.viewer), await stream(box.owner)];
    const text = `@${box.viewer.fixture.username} pozri prosím, a @${box.outsider.fixture.username} nie.`;
    const res = await box.editor.as(request(box.app).post(`/api/conversations/${id}/comments`)).send({ text });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const comment = res.body.data.comment;
    expect(comment).to.include({ text });
    expect(comment.author.id).to.equal(box.editor.fixture.user.id);
    expect(comment.mentions).to.deep.equal([{ id: box.viewer.fixture.user.id, username: box.viewer.fixture.username }]);

    const isComment = (type: string) => (e: SseEvent) => e.event === type && e.data.commentId === comment.id;
    await viewerEvents.waitFor(isComment('comment.mentioned'), 15_000, 'comment.mentioned');
    await ownerEvents.waitFor(isComment('comment.created'), 15_000, 'comment.created');
    // Marker: an event after the comment's on the owner's stream; the owner never got a mention.
    const marker = await createEmailAccount(box.owner.fixture.user);
    await box.owner.as(request(box.app).post('/api/contacts')).send({ emailAccountId: marker.id, email: `marker${Date.now()}@example.com` });
    await ownerEvents.waitFor((e) => e.event === 'contact.created' && e.data.emailAccountId === marker.id, 15_000, 'the marker');
    expect(ownerEvents.events.filter(isComment('comment.mentioned'))).to.deep.equal([]);

    const detail = await box.viewer.as(request(box.app).get(`/api/conversations/${id}`));
    expect(detail.body.data.comments.map((c: Json) => c.id)).to.deep.equal([comment.id]);
    expect((await box.viewer.as(request(box.app).delete(`/api/conversations/${id}/comments/${comment.id}`))).status).to.equal(403);
    expect((await box.outsider.as(request(box.app).delete(`/api/conversations/${id}/comments/${comment.id}`))).status).to.equal(404);
    expect((await box.editor.as(request(box.app).delete(`/api/conversations/${id}/comments/${comment.id}`))).status).to.equal(204);
    expect((await box.viewer.as(request(box.app).get(`/api/conversations/${id}`))).body.data.comments).to.deep.equal([]);
  });

  it('assignment reaches every reader’s live stream as conversation.updated', async () => {
    const { id } = await newThread(`Termín ${randomBytes(3).toString('hex')}`);
    const viewerEvents = await stream(box.viewer);
    expect((await patch(box.editor, id, { status: 'done' })).status).to.equal(200);
    const event = await viewerEvents.waitFor((e) => e.event === 'conversation.updated' && e.data.conversationId === id, 15_000, 'conversation.updated');
    expect(event.data).to.deep.equal({ conversationId: id, emailAccountId: box.accountId, changes: ['status'] });
  });

  it('batch-reads emails by ids (only those the caller may read) and by thread', async () => {
    const mine = (await box.owner.as(request(box.app).get('/api/emails')).query({ emailAccountId: box.accountId })).body.data.items as Json[];
    const other = await crmUser();
    const foreign = await box.outsider.as(request(box.app).get('/api/emails'));
    const ids = [...mine.slice(0, 2).map((e) => e.id as string), ...(foreign.body.data.items as Json[]).map((e) => e.id as string)];
    const got = await box.viewer.as(request(box.app).get('/api/emails')).query({ ids: ids.join(',') });
    expect(got.status).to.equal(200);
    expect((got.body.data.items as Json[]).map((e) => e.id)).to.have.members(mine.slice(0, 2).map((e) => e.id));
    expect((await other.as(request(box.app).get('/api/emails')).query({ ids: ids.join(',') })).body.data.items).to.deep.equal([]);
    const tooMany = Array.from({ length: 101 }, () => '00000000-0000-4000-8000-000000000000'.replace(/0{12}$/, randomBytes(6).toString('hex')));
    for (const bad of ['nie-uuid', tooMany.join(','), ',']) {
      const res = await box.viewer.as(request(box.app).get('/api/emails')).query({ ids: bad });
      expect(res.status, bad.slice(0, 40)).to.equal(400);
      expect(JSON.stringify(res.body.error)).to.match(/ids/);
    }
  });

  it('refuses malformed input with a Slovak 400 and unknown ids with 404, never a 500', async () => {
    const [first] = await list(box.owner, { status: 'all' });
    const cases: Array<[request.Test, number]> = [
      [box.owner.as(request(box.app).get('/api/conversations')).query({ status: 'closed' }), 400],
      [box.owner.as(request(box.app).get('/api/conversations')).query({ assignee: 'someone' }), 400],
      [box.owner.as(request(box.app).get('/api/conversations')).query({ unread: 'yes' }), 400],
      [box.owner.as(request(box.app).get('/api/conversations/nie-uuid')), 400],
      [box.owner.as(request(box.app).get('/api/conversations/00000000-0000-4000-8000-000000000000')), 404],
      [patch(box.owner, first.id, {}), 400],
      [patch(box.owner, first.id, { status: 'closed' }), 400],
      [patch(box.owner, first.id, { assigneeId: 42 }), 400],
      [patch(box.owner, first.id, { assigneeId: '00000000-0000-4000-8000-000000000000' }), 400],
      [patch(box.owner, first.id, { status: 'done', extra: 1 }), 400],
      [box.owner.as(request(box.app).post(`/api/conversations/${first.id}/comments`)).send({ text: '   ' }), 400],
      [box.owner.as(request(box.app).post(`/api/conversations/${first.id}/comments`)).send({ text: 'x'.repeat(5001) }), 400],
      [
        box.owner
          .as(request(box.app).post(`/api/conversations/${first.id}/comments`))
          .set('Content-Type', 'application/json')
          .send('{"text":'),
        400,
      ],
      [box.owner.as(request(box.app).delete(`/api/conversations/${first.id}/comments/00000000-0000-4000-8000-000000000000`)), 404],
    ];
    for (const [test, status] of cases) {
      const res = await test;
      expect(res.status, JSON.stringify(res.body)).to.equal(status);
      expect(res.body.success).to.equal(false);
      expect(res.body.error.message)
        .to.be.a('string')
        .and.not.match(/Error:|at /);
    }
  });

  it('an erased correspondent leaves no conversation, comment or read mark behind', async () => {
    const address = `erase${randomBytes(3).toString('hex')}@gone.example`;
    const subject = `Osobné ${randomBytes(3).toString('hex')}`;
    await put(box.mail, 'INBOX', { from: { name: 'Ana Zmazaná', email: address }, to: me(), subject, body: 'Ana: zdravotné problémy', messageId: messageId() });
    await sync();
    const { id } = (await bySubject(box.owner, subject))!;
    expect((await box.editor.as(request(box.app).post(`/api/conversations/${id}/comments`)).send({ text: 'Ana volá po 17:00' })).status).to.equal(201);
    expect((await box.editor.as(request(box.app).post(`/api/conversations/${id}/read`))).status).to.equal(200);
    await box.ctx.services.privacy.erase(address, { actor: 'test' });
    expect((await box.editor.as(request(box.app).get(`/api/conversations/${id}`))).status).to.equal(404);
    const [left] = await box.ctx.db.sequelize.query<{ threads: number; comments: number; reads: number }>(
      `SELECT (SELECT count(*) FROM email_threads WHERE id = $1)::int AS threads,
              (SELECT count(*) FROM conversation_comments WHERE conversation_id = $1)::int AS comments,
              (SELECT count(*) FROM email_reads r JOIN emails e ON e.id = r.email_id WHERE e.subject = $2)::int AS reads`,
      { bind: [id, subject], type: QueryTypes.SELECT },
    );
    expect(left).to.deep.equal({ threads: 0, comments: 0, reads: 0 });
  });

  it('counts stay right under concurrent syncs, reads and a reply', async () => {
    const subject = `Súbeh ${randomBytes(3).toString('hex')}`;
    const first = messageId();
    const { id } = await newThread(subject, first);
    for (let i = 0; i < 4; i++) {
      await put(box.mail, 'INBOX', { from: ALICE, to: me(), subject: `Re: ${subject}`, body: `Doplnenie ${i}`, messageId: messageId(), inReplyTo: first, date: new Date() });
    }
    const [email] = (await box.owner.as(request(box.app).get('/api/emails')).query({ emailAccountId: box.accountId, search: subject.split(' ')[1] })).body.data.items as Json[];
    await Promise.all([
      box.ctx.services.mailSync.syncAccount(box.accountId),
      box.ctx.services.mailSync.requestSync(box.accountId),
      box.editor.as(request(box.app).post(`/api/conversations/${id}/read`)),
      box.viewer.as(request(box.app).post(`/api/conversations/${id}/read`)),
      box.owner.as(request(box.app).post(`/api/emails/${email.id}/reply`)).send({ text: 'Odpovedáme počas synchronizácie.' }),
    ]);
    await box.ctx.services.mailSync.whenIdle();
    await sync();
    const conversation = (await box.owner.as(request(box.app).get(`/api/conversations/${id}`))).body.data.conversation;
    expect(conversation.messageCount).to.equal(6);
  });

  it('keeps every conversation’s counts equal to its emails (recomputed from the emails table)', async () => {
    const rows = await box.ctx.db.sequelize.query<{ id: string; message_count: number; actual: number; outbound_at: Date | null; actual_outbound: Date | null }>(
      `SELECT t.id, t.message_count,
              (SELECT count(*)::int FROM emails e WHERE e.email_account_id = t.email_account_id AND e.thread_id = t.thread_id AND e.date IS NOT NULL) AS actual,
              t.last_outbound_at AS outbound_at,
              (SELECT max(e.date) FROM emails e WHERE e.email_account_id = t.email_account_id AND e.thread_id = t.thread_id AND e.outbound) AS actual_outbound
         FROM email_threads t WHERE t.email_account_id = $1`,
      { bind: [box.accountId], type: QueryTypes.SELECT },
    );
    expect(rows.length).to.be.greaterThan(3);
    for (const row of rows) {
      expect(row.message_count, row.id).to.equal(row.actual);
      expect(row.outbound_at?.getTime() ?? null, row.id).to.equal(row.actual_outbound?.getTime() ?? null);
    }
  });
});
