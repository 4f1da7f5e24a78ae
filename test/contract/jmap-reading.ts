/**
 * The JMAP contract, reading side: what the sync relies on (session, Mailbox/get, Email/query and
 * Email/get, Email/changes, the errors it handles). The same cases run against the test Cyrus
 * (test/jmap/contract.test.ts, end-to-end tier) and the in-process fake (test/medium/jmap/
 * contract.test.ts), so the fake the medium tier trusts cannot drift from the real server.
 */
import { expect } from 'chai';
import {
  emailChanges,
  fetchSession,
  getEmails,
  getEmailState,
  getMailboxes,
  JmapAuthError,
  JmapClient,
  JmapMethodError,
  JmapProtocolError,
  MAIL_CAPABILITY,
  queryAllEmailIds,
  queryAndGet,
  queryEmailIds,
  setSeen,
  validateMailCredentials,
} from '../../src/jmap/index.js';
import { EMAIL_GET_ARGS } from '../../src/sync/jmap-sync-calls.js';
import { appendMessage, buildMessage, createTestMailUser, testJmapSessionUrl } from '../support/imap.js';
import { HTML_PART, multipartFixture, rejection, TEXT_PART } from './fixtures.js';

export function jmapReadingContract(): void {
  let sessionUrl: string;
  let user: string;
  let pass: string;
  let client: JmapClient;
  const append = (raw: string, mailbox = 'INBOX', flags: string[] = [], internalDate?: Date) => appendMessage({ user, pass, mailbox, raw, flags, internalDate });
  const bySubject = async (subject: string, properties: string[] | null, args = {}) => {
    const { list } = await queryAndGet(client, user, { limit: 200 }, ['subject'], {});
    const id = list.find((e) => e.subject === subject)?.id;
    if (!id) throw new Error(`no email "${subject}"`);
    return (await client.callOne<{ list: Array<Record<string, unknown>> }>('Email/get', { accountId: user, ids: [id], ...args, properties })).list[0];
  };

  before(async () => {
    sessionUrl = testJmapSessionUrl();
    ({ user, pass } = await createTestMailUser('contract'));
    client = new JmapClient({ sessionUrl, credentials: { kind: 'basic', username: user, password: pass }, timeoutMs: 10_000 });
  });

  describe('session', () => {
    it('redirects /.well-known/jmap to /jmap, with relative URLs, the limits the batching reads and the account named by its address', async () => {
      const session = await fetchSession(sessionUrl, { kind: 'basic', username: user, password: pass });
      const origin = new URL(sessionUrl).origin;
      expect(session.sessionUrl).to.equal(`${origin}/jmap`);
      expect(session.apiUrl).to.equal(`${origin}/jmap/`);
      expect(session.downloadUrl).to.equal(`${origin}/jmap/download/{accountId}/{blobId}/{name}?accept={type}`);
      expect(session.uploadUrl).to.equal(`${origin}/jmap/upload/{accountId}/`);
      expect(session.username).to.equal(user);
      expect(session.primaryAccounts[MAIL_CAPABILITY]).to.equal(user);
      expect(session.primaryAccounts['urn:ietf:params:jmap:submission']).to.equal(user);
      expect(session.accounts[user]).to.include({ isPersonal: true, isReadOnly: false });
      expect(session.limits).to.deep.equal({
        maxSizeRequest: 10485760,
        maxCallsInRequest: 50,
        maxObjectsInGet: 4096,
        maxObjectsInSet: 4096,
        maxConcurrentRequests: 5,
        maxSizeUpload: 1073741824,
      });
      expect(session.state).to.equal('0');
    });

    it('checks credentials: the address is the account id; a wrong password or an unknown user is a 401', async () => {
      expect(await validateMailCredentials(sessionUrl, user, pass)).to.deep.equal({ accountId: user });
      const wrong = await rejection(validateMailCredentials(sessionUrl, user, `${pass}-wrong`));
      expect(wrong).to.be.instanceOf(JmapAuthError);
      expect((wrong as JmapAuthError).status).to.equal(401);
      expect(await rejection(validateMailCredentials(sessionUrl, `nobody-${Date.now()}@example.test`, 'x'))).to.be.instanceOf(JmapAuthError);
    });

    it('refuses an unknown capability with the RFC 8620 problem type', async () => {
      const odd = new JmapClient({ sessionUrl, credentials: { kind: 'basic', username: user, password: pass }, extraCapabilities: ['urn:example:unsupported'] });
      const err = await rejection(odd.call([['Mailbox/get', { accountId: user, ids: [] }, 'm']]));
      expect(err).to.be.instanceOf(JmapProtocolError);
      expect(err).to.include({ status: 400, problemType: 'urn:ietf:params:jmap:error:unknownCapability' });
    });
  });

  it('Mailbox/get lists the six autocreated mailboxes with their roles', async () => {
    const boxes = await getMailboxes(client, user);
    expect(Object.fromEntries(boxes.map((b) => [b.role, b.name]))).to.deep.equal({
      inbox: 'Inbox',
      sent: 'Sent',
      drafts: 'Drafts',
      trash: 'Trash',
      junk: 'Junk',
      archive: 'Archive',
    });
    expect(boxes.every((b) => /^[a-z0-9]{24}$/.test(b.id) && b.parentId === null)).to.equal(true);
  });

  it('an appended message reads back as the sync asks for it (addresses, ids, keywords, dates, bodies, bulk headers)', async () => {
    const receivedAt = new Date('2024-03-05T10:20:30Z');
    await append(
      buildMessage({
        from: { name: 'Ján Novák', email: 'jan@firma.example' },
        to: [user, { name: 'Other, Person', email: 'other@firma.example' }],
        cc: 'cc@firma.example',
        subject: 'Príloha – faktúra č. 7',
        body: 'Dobrý deň,\nv prílohe faktúra.\n',
        html: '<p>Dobrý deň</p>',
        messageId: 'fixture-1@firma.example',
        inReplyTo: 'parent-1@firma.example',
        date: new Date('2024-03-05T09:00:00Z'),
        headers: { 'List-Id': 'Newsletter <news.firma.example>', 'List-Unsubscribe': '<mailto:off@firma.example>' },
      }),
      'Sent',
      ['\\Seen', '$Forwarded'],
      receivedAt,
    );
    const e = await bySubject('Príloha – faktúra č. 7', [...EMAIL_GET_ARGS.properties, 'references', 'preview', 'htmlBody'], { ...EMAIL_GET_ARGS, fetchHTMLBodyValues: true });
    const sent = (await getMailboxes(client, user)).find((b) => b.role === 'sent')!;
    expect(e.id).to.match(/^M[0-9a-f]{24}$/);
    expect(e.threadId).to.match(/^T[0-9a-f]{16}$/);
    expect(e.mailboxIds).to.deep.equal({ [sent.id]: true });
    expect(e.keywords).to.deep.equal({ $seen: true, $forwarded: true });
    expect(e.receivedAt).to.equal('2024-03-05T10:20:30Z');
    expect(e.sentAt).to.equal('2024-03-05T09:00:00Z');
    expect(e.from).to.deep.equal([{ name: 'Ján Novák', email: 'jan@firma.example' }]);
    expect(e.to).to.deep.equal([
      { name: null, email: user },
      { name: 'Other, Person', email: 'other@firma.example' },
    ]);
    expect(e.cc).to.deep.equal([{ name: null, email: 'cc@firma.example' }]);
    expect([e.bcc, e.replyTo, e.sender]).to.deep.equal([null, null, null]);
    expect(e.messageId).to.deep.equal(['fixture-1@firma.example']);
    expect(e.inReplyTo).to.deep.equal(['parent-1@firma.example']);
    expect(e.references).to.deep.equal(['parent-1@firma.example']);
    expect(e['header:List-Id:asText']).to.equal('Newsletter <news.firma.example>');
    expect(e['header:List-Unsubscribe']).to.equal(' <mailto:off@firma.example>');
    expect([e['header:Precedence:asText'], e['header:Auto-Submitted:asText']]).to.deep.equal([null, null]);
    expect(e.hasAttachment).to.equal(false);
    expect(e.attachments).to.deep.equal([]);
    expect(e.preview).to.equal('Dobrý deň, v prílohe faktúra. ');
    const textBody = e.textBody as Array<Record<string, unknown>>;
    const size = Buffer.byteLength('Dobrý deň,\r\nv prílohe faktúra.\r\n');
    expect(textBody).to.deep.equal([{ partId: '1', blobId: textBody[0].blobId, type: 'text/plain', name: null, size, disposition: null, cid: null }]);
    const values = e.bodyValues as Record<string, { value: string; isTruncated: boolean }>;
    expect(values).to.deep.equal({
      '1': { value: 'Dobrý deň,\nv prílohe faktúra.\n', isEncodingProblem: false, isTruncated: false },
      '2': { value: '<p>Dobrý deň</p>', isEncodingProblem: false, isTruncated: false },
    });
  });

  it('splits text, HTML, inline images and attachments as RFC 8621 §4.1.4 says, names decoded, each part a blob', async () => {
    const { raw, pdf } = multipartFixture(user, 'Structure check');
    await append(raw);
    const e = await bySubject('Structure check', ['textBody', 'htmlBody', 'attachments', 'hasAttachment', 'bodyValues'], {
      bodyProperties: EMAIL_GET_ARGS.bodyProperties,
      fetchTextBodyValues: true,
    });
    const parts = (key: string) => (e[key] as Array<Record<string, unknown>>).map(({ blobId: _b, ...rest }) => rest);
    expect(parts('textBody')).to.deep.equal([{ partId: '1.1', type: 'text/plain', name: null, size: Buffer.byteLength(TEXT_PART), disposition: null, cid: null }]);
    expect(parts('htmlBody')).to.deep.equal([{ partId: '1.2.1', type: 'text/html', name: null, size: Buffer.byteLength(HTML_PART), disposition: null, cid: null }]);
    expect(parts('attachments')).to.deep.equal([
      { partId: '1.2.2', type: 'image/png', name: 'logo.png', size: 8, disposition: 'inline', cid: 'logo@firma.example' },
      { partId: '2', type: 'application/pdf', name: 'Zmluva č. 5.pdf', size: pdf.length, disposition: 'attachment', cid: null },
    ]);
    expect(e.hasAttachment).to.equal(true);
    expect(e.bodyValues).to.deep.equal({ '1.1': { value: TEXT_PART, isEncodingProblem: false, isTruncated: false } });
    const blobIds = (e.attachments as Array<{ blobId: string }>).map((a) => a.blobId);
    expect(blobIds.every((id) => /^G[0-9a-f]{40}$/.test(id))).to.equal(true);
  });

  it('maxBodyValueBytes truncates a body value and says so', async () => {
    await append(buildMessage({ from: 'a@b.example', to: user, subject: 'Long body', body: 'x'.repeat(5000) }));
    const e = await bySubject('Long body', ['textBody', 'bodyValues'], { fetchTextBodyValues: true, maxBodyValueBytes: 100 });
    const value = (e.bodyValues as Record<string, { value: string; isTruncated: boolean }>)['1'];
    expect(value).to.deep.include({ isTruncated: true });
    expect(value.value).to.equal('x'.repeat(100));
  });

  it('Email/get refuses asText on a structured header, an unknown property and a call without ids, as Cyrus does', async () => {
    const call = (args: Record<string, unknown>) => client.call([['Email/get', { accountId: user, ...args }, 'g']]);
    expect((await call({ ids: [], properties: ['header:List-Unsubscribe:asText'] }))[0][1]).to.deep.equal({
      type: 'invalidArguments',
      arguments: ['properties[0:header:List-Unsubscribe:asText]'],
    });
    expect((await call({ ids: [], properties: ['id', 'bogus'] }))[0][1]).to.deep.equal({ type: 'invalidArguments', arguments: ['properties[1:bogus]'] });
    expect((await call({}))[0][1]).to.deep.include({ type: 'requestTooLarge' });
  });

  it('threads a reply with its original when the subjects agree, and not otherwise', async () => {
    await append(buildMessage({ from: 'p@q.example', to: user, subject: 'Ponuka', body: '1', messageId: 'root-1@q.example' }));
    await append(buildMessage({ from: user, to: 'p@q.example', subject: 'RE: Ponuka', body: '2', messageId: 'reply-1@q.example', inReplyTo: 'root-1@q.example' }));
    await append(buildMessage({ from: 'p@q.example', to: user, subject: 'Iná vec', body: '3', messageId: 'other-1@q.example', inReplyTo: 'root-1@q.example' }));
    const [root, reply, other] = await Promise.all(['Ponuka', 'RE: Ponuka', 'Iná vec'].map((s) => bySubject(s, ['threadId'])));
    expect(reply.threadId).to.equal(root.threadId);
    expect(other.threadId).not.to.equal(root.threadId);
  });

  describe('queries and changes', () => {
    let stateBefore: string;
    let ids: string[];

    before(async () => {
      stateBefore = await getEmailState(client, user);
      for (let i = 0; i < 12; i++) {
        await append(buildMessage({ from: `s${i}@p.example`, to: user, subject: `Page ${i}`, body: `n${i}` }), 'INBOX', [], new Date(Date.UTC(2025, 0, 1, 0, 0, i)));
      }
      const inbox = (await getMailboxes(client, user)).find((b) => b.role === 'inbox')!;
      const { list } = await queryAndGet(client, user, { filter: { inMailbox: inbox.id }, limit: 100 }, ['subject']);
      ids = list.filter((e) => e.subject?.startsWith('Page ')).map((e) => e.id);
      expect(ids).to.have.length(12);
    });

    it('Email/query sorts newest first, filters by mailbox, pages by anchor and counts the total', async () => {
      const pages = await queryAllEmailIds(client, user, null, 5);
      const { list } = await getEmails(client, user, pages.ids, ['receivedAt']);
      const times = list.map((e) => Date.parse(e.receivedAt!));
      expect(times).to.deep.equal([...times].sort((a, b) => b - a));
      expect(pages.total).to.equal(pages.ids.length);
      expect(new Set(pages.ids).size).to.equal(pages.ids.length);
      const trash = (await getMailboxes(client, user)).find((b) => b.role === 'trash')!;
      const outside = await queryEmailIds(client, user, { filter: { inMailboxOtherThan: [trash.id] }, limit: 500 });
      expect(outside.total).to.equal(pages.total);
      const q = await queryEmailIds(client, user, { filter: null, anchor: ids[3], anchorOffset: 1, limit: 2 });
      expect(q.ids).to.have.length(2);
    });

    it('Email/query refuses an unknown mailbox in its filter', async () => {
      const r = await client.call([['Email/query', { accountId: user, filter: { inMailbox: 'nosuchmailbox' } }, 'q']]);
      expect(r[0]).to.deep.equal(['error', { type: 'invalidArguments', arguments: ['filter/inMailbox'] }, 'q']);
    });

    it('Email/changes pages through what was appended, with maxChanges and hasMoreChanges', async () => {
      const created = new Set<string>();
      let state = stateBefore;
      let rounds = 0;
      for (let more = true; more; rounds++) {
        const c = await emailChanges(client, user, state, 5);
        expect(c.created.length + c.updated.length + c.destroyed.length).to.be.at.most(5);
        c.created.forEach((id) => created.add(id));
        expect(Number(c.newState)).to.be.above(Number(state));
        state = c.newState;
        more = c.hasMoreChanges;
      }
      expect(rounds).to.be.at.least(3);
      for (const id of ids) expect(created.has(id), id).to.equal(true);
      const again = await emailChanges(client, user, state);
      expect(again).to.deep.include({ oldState: state, newState: state, hasMoreChanges: false, created: [], updated: [], destroyed: [] });
    });

    it('$seen set and cleared by patch shows as an update; an unknown id is notFound', async () => {
      const state = await getEmailState(client, user);
      const on = await setSeen(client, user, { [ids[0]]: true, Mnosuchemail000000000000: true });
      expect(on.updated).to.deep.equal([ids[0]]);
      expect(on.notUpdated.Mnosuchemail000000000000?.type).to.equal('notFound');
      expect((await getEmails(client, user, [ids[0]], ['keywords'])).list[0].keywords).to.deep.equal({ $seen: true });
      const changes = await emailChanges(client, user, state);
      expect(changes).to.deep.include({ created: [], updated: [ids[0]], destroyed: [] });
      await setSeen(client, user, { [ids[0]]: false });
      expect((await getEmails(client, user, [ids[0]], ['keywords'])).list[0].keywords).to.deep.equal({});
    });

    it('a move to Trash keeps the id and shows as an update; a destroyed email shows as destroyed', async () => {
      const boxes = await getMailboxes(client, user);
      const [inbox, trash] = ['inbox', 'trash'].map((role) => boxes.find((b) => b.role === role)!.id);
      const state = await getEmailState(client, user);
      const moved = await client.callOne<{ updated: Record<string, unknown> }>('Email/set', {
        accountId: user,
        update: { [ids[1]]: { [`mailboxIds/${inbox}`]: null, [`mailboxIds/${trash}`]: true } },
      });
      expect(moved.updated).to.deep.equal({ [ids[1]]: null });
      const gone = await client.callOne<{ destroyed: string[] }>('Email/set', { accountId: user, destroy: [ids[2]] });
      expect(gone.destroyed).to.deep.equal([ids[2]]);
      const changes = await emailChanges(client, user, state);
      expect(changes).to.deep.include({ created: [], updated: [ids[1]], destroyed: [ids[2]] });
      expect((await getEmails(client, user, [ids[1], ids[2]], ['mailboxIds'])).list.map((e) => [e.id, e.mailboxIds])).to.deep.equal([[ids[1], { [trash]: true }]]);
    });

    it('a sinceState it cannot use is invalidArguments or silence, both of which the client calls cannotCalculateChanges', async () => {
      const raw = await client.call([['Email/changes', { accountId: user, sinceState: 'bogus' }, 'c']]);
      expect(raw[0]).to.deep.equal(['error', { type: 'invalidArguments', arguments: ['sinceState'] }, 'c']);
      const future = await client.call([['Email/changes', { accountId: user, sinceState: '999999999' }, 'c']]);
      expect(future[0][0]).to.equal('Email/changes');
      expect(future[0][1]).to.deep.include({ created: [], updated: [], destroyed: [], hasMoreChanges: false });
      for (const since of ['bogus', '999999999']) {
        const err = await rejection(emailChanges(client, user, since));
        expect(err).to.be.instanceOf(JmapMethodError);
        expect((err as JmapMethodError).type).to.equal('cannotCalculateChanges');
      }
      const zero = await client.call([['Email/changes', { accountId: user, sinceState: stateBefore, maxChanges: 0 }, 'c']]);
      expect(zero[0]).to.deep.equal(['error', { type: 'invalidArguments', arguments: ['maxChanges'] }, 'c']);
    });
  });
}
