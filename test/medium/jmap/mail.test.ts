/**
 * The mail helpers' batching and paging (src/jmap/mail.ts): split by the session's limits, requests
 * counted. Against the medium tier's JMAP fake, which the contract suite (test/contract/) holds to
 * Cyrus; the single-call cases that were here are cases of that suite now.
 */
import { expect } from 'chai';
import { emailChanges, getEmails, getEmailState, JmapClient, queryAllEmailIds, queryAndGet, queryEmailIds, setSeen } from '../../../src/jmap/index.js';
import { appendMessage, buildMessage, createTestMailUser, testJmapSessionUrl } from '../../support/imap.js';

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the promise to reject');
}

describe('jmap batching and paging (25 seeded messages)', () => {
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
    // As scripts/jmap/seed.sh does on Cyrus: a minute apart, the oldest first.
    const base = Date.now() - 25 * 60_000;
    for (let i = 1; i <= 25; i++) {
      const raw = buildMessage({ from: `sender${i % 6}@customer.example`, to: user, subject: `Seeded #${i}`, body: `message ${i}` });
      await appendMessage({ user, pass, mailbox: 'INBOX', raw, internalDate: new Date(base + i * 60_000) });
    }
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
