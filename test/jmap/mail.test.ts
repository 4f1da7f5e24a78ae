/**
 * Mail helpers against the real test Cyrus server: fixtures appended over IMAP, read back over JMAP.
 * Each describe block works in its own fresh mail user.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { emailChanges, getEmails, getEmailState, getMailboxes, JmapClient, JmapMethodError, queryAllEmailIds, queryAndGet, queryEmailIds, setSeen } from '../../src/jmap/index.js';
import { appendMessage, buildMessage, createTestMailUser, testImapPort, testJmapSessionUrl } from '../support/imap.js';

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the promise to reject');
}

/** Appends one simple message and returns its Email id (found by its unique subject). */
async function appendAndFind(client: JmapClient, user: string, pass: string, subject: string): Promise<string> {
  await appendMessage({ user, pass, mailbox: 'INBOX', raw: buildMessage({ from: 'x@sender.example', to: user, subject, body: 'hi' }) });
  const { list } = await queryAndGet(client, user, { limit: 20 }, ['subject']);
  const found = list.find((e) => e.subject === subject);
  if (!found) throw new Error(`appended message "${subject}" not found`);
  return found.id;
}

describe('jmap mail helpers (Cyrus)', () => {
  let user: string;
  let pass: string;
  let client: JmapClient;

  before(async () => {
    const sessionUrl = testJmapSessionUrl();
    ({ user, pass } = await createTestMailUser('mail'));
    client = new JmapClient({ sessionUrl, credentials: { kind: 'basic', username: user, password: pass }, timeoutMs: 10_000 });
  });

  it('getMailboxes lists the autocreated mailboxes with their roles', async () => {
    const boxes = await getMailboxes(client, user);
    const byRole = Object.fromEntries(boxes.map((b) => [b.role, b.name]));
    expect(byRole).to.deep.equal({ inbox: 'Inbox', sent: 'Sent', drafts: 'Drafts', trash: 'Trash', junk: 'Junk', archive: 'Archive' });
    expect(boxes.every((b) => typeof b.id === 'string' && b.parentId === null)).to.equal(true);
  });

  it('fixtures built by buildMessage/appendMessage arrive exactly as specified', async () => {
    const receivedAt = new Date('2024-03-05T10:20:30Z');
    const raw = buildMessage({
      from: { name: 'Ján Novák', email: 'jan@firma.example' },
      to: [user, { name: 'Other, Person', email: 'other@firma.example' }],
      cc: 'cc@firma.example',
      subject: 'Príloha – faktúra č. 7',
      body: 'Dobrý deň,\nv prílohe faktúra.\n',
      html: '<p>Dobrý deň</p>',
      messageId: 'fixture-1@firma.example',
      inReplyTo: 'parent-1@firma.example',
      headers: { 'List-Id': 'Newsletter <news.firma.example>' },
    });
    expect(raw).to.match(/\r\n\r\n/);
    expect(raw.replace(/\r\n/g, '')).not.to.match(/\n/);
    await appendMessage({ user, pass, mailbox: 'Sent', raw, flags: ['\\Seen'], internalDate: receivedAt });

    const sent = (await getMailboxes(client, user)).find((b) => b.role === 'sent')!;
    const q = await queryEmailIds(client, user, { filter: { inMailbox: sent.id }, limit: 10 });
    expect(q.ids).to.have.length(1);
    const { list } = await getEmails(
      client,
      user,
      q.ids,
      ['subject', 'from', 'to', 'cc', 'messageId', 'inReplyTo', 'keywords', 'receivedAt', 'mailboxIds', 'header:List-Id:asText', 'textBody', 'htmlBody', 'bodyValues'],
      { fetchTextBodyValues: true, fetchHTMLBodyValues: true },
    );
    const e = list[0];
    expect(e.subject).to.equal('Príloha – faktúra č. 7');
    expect(e.from).to.deep.equal([{ name: 'Ján Novák', email: 'jan@firma.example' }]);
    expect(e.to?.map((a) => a.email)).to.deep.equal([user, 'other@firma.example']);
    expect(e.to?.[1]?.name).to.equal('Other, Person');
    expect(e.cc?.[0]?.email).to.equal('cc@firma.example');
    expect(e.messageId).to.deep.equal(['fixture-1@firma.example']);
    expect(e.inReplyTo).to.deep.equal(['parent-1@firma.example']);
    expect(e.keywords).to.deep.equal({ $seen: true });
    expect(new Date(e.receivedAt!).getTime()).to.equal(receivedAt.getTime());
    expect(e.mailboxIds).to.deep.equal({ [sent.id]: true });
    expect(e['header:List-Id:asText']).to.equal('Newsletter <news.firma.example>');
    const text = e.bodyValues?.[e.textBody![0].partId!];
    const html = e.bodyValues?.[e.htmlBody![0].partId!];
    expect(text?.value).to.equal('Dobrý deň,\nv prílohe faktúra.\n');
    expect(html?.value).to.equal('<p>Dobrý deň</p>');
  });

  it('maxBodyValueBytes truncates body values and says so', async () => {
    const subject = `long ${Date.now()}`;
    await appendMessage({ user, pass, mailbox: 'INBOX', raw: buildMessage({ from: 'a@b.example', to: user, subject, body: 'x'.repeat(5000) }) });
    const { list } = await queryAndGet(client, user, { filter: { inMailboxOtherThan: [] }, limit: 50 }, ['subject', 'textBody', 'bodyValues'], {
      fetchTextBodyValues: true,
      maxBodyValueBytes: 100,
    });
    const e = list.find((m) => m.subject === subject)!;
    const value = e.bodyValues![e.textBody![0].partId!];
    expect(value.isTruncated).to.equal(true);
    expect(value.value.length).to.be.at.most(100);
  });

  it('Email/changes reports a message appended after the state was read', async () => {
    const before = await getEmailState(client, user);
    const id = await appendAndFind(client, user, pass, `changes ${Date.now()}`);
    const changes = await emailChanges(client, user, before);
    expect(changes.oldState).to.equal(before);
    expect(changes.newState).not.to.equal(before);
    expect(changes.created).to.deep.equal([id]);
    expect(changes.destroyed).to.deep.equal([]);
    expect(changes.hasMoreChanges).to.equal(false);
    const again = await emailChanges(client, user, changes.newState);
    expect(again).to.include({ oldState: changes.newState, newState: changes.newState });
    expect(again.created.concat(again.updated, again.destroyed)).to.deep.equal([]);
  });

  it('setSeen sets and clears $seen, shows up in Email/changes, and reports refused ids', async () => {
    const id = await appendAndFind(client, user, pass, `seen ${Date.now()}`);
    const state = await getEmailState(client, user);

    const on = await setSeen(client, user, { [id]: true, Mnosuchemail000000000000: true });
    expect(on.updated).to.deep.equal([id]);
    expect(on.notUpdated.Mnosuchemail000000000000?.type).to.equal('notFound');
    expect((await getEmails(client, user, [id], ['keywords'])).list[0].keywords).to.deep.equal({ $seen: true });
    const changes = await emailChanges(client, user, state);
    expect(changes.updated).to.deep.equal([id]);
    expect(changes.created).to.deep.equal([]);

    const off = await setSeen(client, user, { [id]: false });
    expect(off.updated).to.deep.equal([id]);
    expect((await getEmails(client, user, [id], ['keywords'])).list[0].keywords).to.deep.equal({});
  });

  it('a sinceState Cyrus cannot use comes out as cannotCalculateChanges', async () => {
    // What Cyrus itself answers: invalidArguments for an unparseable state...
    const raw = await client.call([['Email/changes', { accountId: user, sinceState: 'bogus' }, 'c']]);
    expect(raw[0][0]).to.equal('error');
    expect(raw[0][1]).to.deep.include({ type: 'invalidArguments', arguments: ['sinceState'] });
    const err = await rejection(emailChanges(client, user, 'bogus'));
    expect(err).to.be.instanceOf(JmapMethodError);
    expect((err as JmapMethodError).type).to.equal('cannotCalculateChanges');
    expect((err as JmapMethodError).serverType).to.equal('invalidArguments');

    // ...and "no changes" for a numeric state it never issued (e.g. saved before a server reset).
    const future = await client.call([['Email/changes', { accountId: user, sinceState: '999999999' }, 'c']]);
    expect(future[0][0]).to.equal('Email/changes');
    const err2 = await rejection(emailChanges(client, user, '999999999'));
    expect(err2).to.be.instanceOf(JmapMethodError);
    expect((err2 as JmapMethodError).type).to.equal('cannotCalculateChanges');
  });

  it('method errors are returned by call() and thrown when asked', async () => {
    const responses = await client.call([
      ['Nope/get', { accountId: user, ids: [] }, 'a'],
      ['Mailbox/get', { accountId: user, ids: [] }, 'b'],
    ]);
    expect(responses.map((r) => [r[0], r[2]])).to.deep.equal([
      ['error', 'a'],
      ['Mailbox/get', 'b'],
    ]);
    const err = await rejection(client.call([['Email/get', { accountId: 'nobody@example.test', ids: [] }, 'x']], { throwOnMethodError: true }));
    expect(err).to.be.instanceOf(JmapMethodError);
    expect(err).to.include({ type: 'accountNotFound', methodName: 'Email/get', callId: 'x' });
  });
});

describe('jmap batching and paging (Cyrus, 25 seeded messages)', () => {
  const seedScript = fileURLToPath(new URL('../../scripts/jmap/seed.sh', import.meta.url));
  let user: string;
  let pass: string;
  let sessionUrl: string;
  let stateBeforeSeed: string;
  let allIds: string[];

  const clientWith = (limitsOverride = {}) => new JmapClient({ sessionUrl, credentials: { kind: 'basic', username: user, password: pass }, limitsOverride });

  before(async () => {
    sessionUrl = testJmapSessionUrl();
    ({ user, pass } = await createTestMailUser('batch'));
    stateBeforeSeed = await getEmailState(clientWith(), user);
    await promisify(execFile)('bash', [seedScript, user, pass, '25'], { env: { ...process.env, JMAP_IMAP_PORT: String(testImapPort()) } });
    allIds = (await queryEmailIds(clientWith(), user, { limit: 100 })).ids;
    expect(allIds).to.have.length(25);
  });

  it('getEmails splits by maxObjectsInGet and maxCallsInRequest and counts requests', async () => {
    const client = clientWith({ maxObjectsInGet: 4, maxCallsInRequest: 3 });
    await client.session();
    const before = client.requestCount;
    const { list, notFound } = await getEmails(client, user, allIds, ['subject', 'from']);
    // 25 ids / 4 per Email/get = 7 calls; 3 calls per request = 3 HTTP requests
    expect(client.requestCount - before).to.equal(3);
    expect(list.map((e) => e.id).sort()).to.deep.equal([...allIds].sort());
    expect(notFound).to.deep.equal([]);
    expect(list.every((e) => typeof e.subject === 'string' && e.from?.length === 1)).to.equal(true);
  });

  it('call() refuses more calls than maxCallsInRequest', async () => {
    const client = clientWith({ maxCallsInRequest: 2 });
    const calls = [0, 1, 2].map((i) => ['Mailbox/get', { accountId: user, ids: [] }, `m${i}`] as [string, Record<string, unknown>, string]);
    expect(await rejection(client.call(calls))).to.be.instanceOf(RangeError);
  });

  it('queryAllEmailIds pages by anchor and returns every id once, newest first', async () => {
    const client = clientWith();
    await client.session();
    const before = client.requestCount;
    const all = await queryAllEmailIds(client, user, null, 10);
    expect(client.requestCount - before).to.equal(3);
    expect(all.ids).to.deep.equal(allIds);
    expect(all.total).to.equal(25);
    const { list } = await getEmails(client, user, all.ids, ['receivedAt']);
    const times = list.map((e) => Date.parse(e.receivedAt!));
    expect(times).to.deep.equal([...times].sort((a, b) => b - a));
  });

  it('queryAndGet returns the first page and its emails in one request', async () => {
    const client = clientWith();
    await client.session();
    const before = client.requestCount;
    const r = await queryAndGet(client, user, { limit: 5 }, ['subject', 'preview']);
    expect(client.requestCount - before).to.equal(1);
    expect(r.query.ids).to.deep.equal(allIds.slice(0, 5));
    expect(r.query.total).to.equal(25);
    expect(r.list.map((e) => e.id)).to.deep.equal(allIds.slice(0, 5));
  });

  it('emailChanges pages with maxChanges until hasMoreChanges is false', async () => {
    const client = clientWith();
    const created = new Set<string>();
    let state = stateBeforeSeed;
    let rounds = 0;
    for (let more = true; more; rounds++) {
      const c = await emailChanges(client, user, state, 10);
      expect(c.created.length + c.updated.length).to.be.at.most(10);
      c.created.forEach((id) => created.add(id));
      expect(c.newState).not.to.equal(state);
      state = c.newState;
      more = c.hasMoreChanges;
    }
    expect(rounds).to.be.at.least(3);
    expect([...created].sort()).to.deep.equal([...allIds].sort());
  });

  it('setSeen splits by maxObjectsInSet', async () => {
    const client = clientWith({ maxObjectsInSet: 10 });
    await client.session();
    const before = client.requestCount;
    const r = await setSeen(client, user, Object.fromEntries(allIds.map((id) => [id, true])));
    expect(client.requestCount - before).to.equal(3);
    expect(r.updated.sort()).to.deep.equal([...allIds].sort());
    const { list } = await getEmails(client, user, allIds, ['keywords']);
    expect(list.every((e) => e.keywords?.$seen === true)).to.equal(true);
  });
});
