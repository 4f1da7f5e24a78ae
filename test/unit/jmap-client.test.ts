/**
 * The JMAP client's request discipline (one session fetch, limits, batching, session-state changes)
 * and the mail helpers built on it, against the in-process fake server (support/fake-jmap.ts).
 */
import { expect } from 'chai';
import {
  chunk,
  createAndSubmit,
  emailChanges,
  expandUrlTemplate,
  getEmails,
  getEmailState,
  getMailboxes,
  JmapClient,
  JmapMethodError,
  JmapProtocolError,
  prepareSend,
  queryAllEmailIds,
  queryAndGet,
  readEmailChanges,
  responseFor,
  setSeen,
  type JmapClientOptions,
  type SendSetup,
} from '../../src/jmap/index.js';
import { ACCOUNT, FakeJmap, json, RECORDED_MAILBOXES, recordedSession, SESSION_URL, type FakeJmapOptions } from './support/fake-jmap.js';

function clientFor(server: FakeJmap, options: Partial<JmapClientOptions> = {}): JmapClient {
  return new JmapClient({ sessionUrl: SESSION_URL, credentials: { kind: 'basic', username: ACCOUNT, password: 'pw' }, fetchImpl: server.fetch, ...options });
}

function withLimits(limits: Record<string, number>, options: FakeJmapOptions = {}): FakeJmap {
  const session = recordedSession();
  const core = (session.capabilities as Record<string, Record<string, unknown>>)['urn:ietf:params:jmap:core'];
  Object.assign(core, limits);
  return new FakeJmap({ ...options, session });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (err: Error) => err,
  );
}

describe('unit: JMAP client', () => {
  it('fetches the session once for concurrent callers, and does not keep a failed fetch', async () => {
    let failNext = true;
    const server = new FakeJmap({
      respond: (r) => {
        if (r.body || !failNext) return undefined;
        failNext = false;
        return new Response('busy', { status: 503 });
      },
    });
    const client = clientFor(server);
    expect(await failure(client.session())).to.be.instanceOf(JmapProtocolError);
    const [a, b, c] = await Promise.all([client.session(), client.session(), client.session()]);
    expect(a).to.equal(b).and.to.equal(c);
    expect(server.requests).to.have.length(2);
    expect(client.requestCount).to.equal(2);
  });

  it('narrows the server limits with limitsOverride but never widens them or goes below 1', async () => {
    const client = clientFor(new FakeJmap(), { limitsOverride: { maxObjectsInGet: 10, maxCallsInRequest: 500, maxObjectsInSet: 0 } });
    const limits = await client.limits();
    expect(limits).to.include({ maxObjectsInGet: 10, maxCallsInRequest: 50, maxObjectsInSet: 1, maxSizeRequest: 10485760 });
  });

  it('sends core, mail and extra capabilities once each, authenticated, and answers the method responses in order', async () => {
    const server = new FakeJmap({ methods: { 'Core/echo': (args) => args } });
    const client = clientFor(server, { extraCapabilities: ['urn:ietf:params:jmap:mail', 'urn:ietf:params:jmap:submission'] });
    const responses = await client.call(
      [
        ['Core/echo', { n: 1 }, 'a'],
        ['Core/echo', { n: 2 }, 'b'],
      ],
      { using: ['urn:ietf:params:jmap:submission'] },
    );
    expect(responses).to.deep.equal([
      ['Core/echo', { n: 1 }, 'a'],
      ['Core/echo', { n: 2 }, 'b'],
    ]);
    const request = server.apiRequests[0];
    expect(request.body!.using).to.deep.equal(['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail', 'urn:ietf:params:jmap:submission']);
    expect(request.authorization).to.match(/^Basic /);
    expect(request.method).to.equal('POST');
  });

  it('refuses more calls than maxCallsInRequest before sending anything', async () => {
    const server = withLimits({ maxCallsInRequest: 2 });
    const client = clientFor(server);
    const calls = [1, 2, 3].map((n): [string, Record<string, unknown>, string] => ['Core/echo', {}, `c${n}`]);
    expect(await failure(client.call(calls))).to.be.instanceOf(RangeError);
    expect(server.apiRequests).to.have.length(0);
  });

  it('turns a method error into JmapMethodError naming the method, the call and what the server blamed', async () => {
    const server = new FakeJmap({ methods: { 'Email/query': () => [['error', { type: 'invalidArguments', arguments: ['filter'] }, 'c1']] } });
    const err = await failure(clientFor(server).callOne('Email/query', { accountId: ACCOUNT }));
    expect(err).to.be.instanceOf(JmapMethodError).and.to.include({ type: 'invalidArguments', methodName: 'Email/query', callId: 'c1', retryable: false });
    expect(err.message).to.equal('JMAP Email/query failed: invalidArguments (blames filter)');
    // Without throwOnMethodError the error is just a response.
    const [response] = await clientFor(server).call([['Email/query', {}, 'c1']]);
    expect(response[0]).to.equal('error');
  });

  it('notices a changed session state, tells the owner, and fetches the session again on the next call', async () => {
    let state = '0';
    const server = new FakeJmap({ sessionState: () => state, methods: { 'Core/echo': () => ({}) } });
    const changes: string[] = [];
    const client = clientFor(server, { onSessionChanged: (from, to) => changes.push(`${from}->${to}`) });
    await client.callOne('Core/echo', {});
    state = '7';
    await client.callOne('Core/echo', {});
    expect(client.sessionChanged).to.equal(1);
    expect(changes).to.deep.equal(['0->7']);
    await client.callOne('Core/echo', {});
    const sessionFetches = server.requests.filter((r) => r.url === SESSION_URL).length;
    expect(sessionFetches).to.equal(2);
  });

  it('refuses an API answer without methodResponses or sessionState, or with a malformed response', async () => {
    const bodies = [
      { methodResponses: [] },
      { sessionState: '0' },
      { methodResponses: [['Core/echo', null, 'a']], sessionState: '0' },
      { methodResponses: [['x', {}]], sessionState: '0' },
    ];
    for (const body of bodies) {
      const server = new FakeJmap({ respond: (r) => (r.body ? json(body) : undefined) });
      const err = await failure(clientFor(server).call([['Core/echo', {}, 'a']]));
      expect(err, JSON.stringify(body)).to.be.instanceOf(JmapProtocolError);
    }
  });

  it('splits independent calls into requests of maxCallsInRequest, keeping their order', async () => {
    const server = withLimits({ maxCallsInRequest: 2 }, { methods: { 'Core/echo': (args) => args } });
    const calls = [1, 2, 3, 4, 5].map((n): [string, Record<string, unknown>, string] => ['Core/echo', { n }, `c${n}`]);
    const responses = await clientFor(server).callInBatches(calls);
    expect(responses.map((r) => r[1].n)).to.deep.equal([1, 2, 3, 4, 5]);
    expect(server.apiRequests.map((r) => r.body!.methodCalls.length)).to.deep.equal([2, 2, 1]);
  });

  it("gets many ids in parts of maxObjectsInGet, merging list and notFound, with the first part's state", async () => {
    let part = 0;
    const server = withLimits(
      { maxObjectsInGet: 3, maxCallsInRequest: 2 },
      {
        methods: {
          'Email/get': (args) => {
            const ids = args.ids as string[];
            return { state: `s${++part}`, list: ids.filter((id) => id !== 'gone').map((id) => ({ id })), notFound: ids.filter((id) => id === 'gone') };
          },
        },
      },
    );
    const ids = ['a', 'b', 'c', 'd', 'gone', 'f', 'g'];
    const result = await getEmails(clientFor(server), ACCOUNT, ids, ['id']);
    expect(result.list.map((e) => e.id)).to.deep.equal(['a', 'b', 'c', 'd', 'f', 'g']);
    expect(result.notFound).to.deep.equal(['gone']);
    expect(result.state).to.equal('s1');
    expect(server.apiRequests.map((r) => r.body!.methodCalls.length)).to.deep.equal([2, 1]);
    expect(await getEmails(clientFor(server), ACCOUNT, [], ['id'])).to.deep.equal({ list: [], notFound: [], state: undefined });
  });

  it('picks the answer to a call by method name, and reports a missing answer', () => {
    const responses: Array<[string, Record<string, unknown>, string]> = [
      ['Email/set', { updated: {} }, 's'],
      ['EmailSubmission/set', { created: {} }, 's'],
      ['error', { type: 'stateMismatch' }, 'x'],
    ];
    expect(responseFor(responses, 's', 'EmailSubmission/set')).to.deep.equal({ created: {} });
    expect(responseFor(responses, 's')).to.deep.equal({ updated: {} });
    expect(() => responseFor(responses, 'x', 'Email/set'))
      .to.throw(JmapMethodError)
      .with.property('type', 'stateMismatch');
    expect(() => responseFor(responses, 'nope', 'Email/get')).to.throw(JmapProtocolError, 'lacks an answer to call nope (Email/get)');
  });

  it('chunks lists into parts of at most the size, none empty', () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).to.deep.equal([[1, 2], [3, 4], [5]]);
    expect(chunk([], 3)).to.deep.equal([]);
    expect(chunk([1, 2], 5)).to.deep.equal([[1, 2]]);
  });
});

describe('unit: JMAP mail helpers', () => {
  it('lists the recorded mailboxes with role and parent as null when absent', async () => {
    const server = new FakeJmap({ methods: { 'Mailbox/get': () => ({ list: [...RECORDED_MAILBOXES, { id: 'x', name: 'Projekty' }] }) } });
    const boxes = await getMailboxes(clientFor(server), ACCOUNT);
    expect(boxes).to.have.length(7);
    expect(boxes.find((b) => b.role === 'sent')!.name).to.equal('Sent');
    expect(boxes.at(-1)).to.deep.equal({ id: 'x', name: 'Projekty', role: null, parentId: null });
    expect(server.calls[0][1]).to.deep.include({ accountId: ACCOUNT, ids: null });
  });

  it('pages all ids by anchor, not by position, and stops when a page brings nothing new', async () => {
    const all = ['e1', 'e2', 'e3', 'e4', 'e5'];
    const server = new FakeJmap({
      methods: {
        'Email/query': (args) => {
          const start = args.anchor === undefined ? 0 : all.indexOf(args.anchor as string) + (args.anchorOffset as number);
          return { ids: all.slice(start, start + (args.limit as number)), queryState: 'q1', position: start };
        },
      },
    });
    const result = await queryAllEmailIds(clientFor(server), ACCOUNT, null, 2);
    expect(result).to.deep.equal({ ids: all, total: 5, queryState: 'q1' });
    const pages = server.calls.map((c) => c[1]);
    expect(pages[0]).to.include({ position: 0, limit: 2 });
    expect(pages[1]).to.include({ anchor: 'e2', anchorOffset: 1 }).and.not.to.have.property('position');
  });

  it('survives a server that ignores the anchor (no endless loop)', async () => {
    const server = new FakeJmap({ methods: { 'Email/query': () => ({ ids: ['e1', 'e2'], queryState: 'q', position: 0 }) } });
    const result = await queryAllEmailIds(clientFor(server), ACCOUNT, null, 2);
    expect(result.ids).to.deep.equal(['e1', 'e2']);
    expect(server.apiRequests).to.have.length(2);
  });

  it('restarts paging when the anchor vanished meanwhile, at most three times', async () => {
    let lost = 0;
    const server = new FakeJmap({
      methods: {
        'Email/query': (args, callId) => {
          if (args.anchor !== undefined) {
            lost++;
            return [['error', { type: 'anchorNotFound' }, callId]];
          }
          return { ids: ['e1'], queryState: 'q', position: 0, total: 2 };
        },
      },
    });
    const err = await failure(queryAllEmailIds(clientFor(server), ACCOUNT, null, 1));
    expect(err).to.be.instanceOf(JmapMethodError).and.to.include({ type: 'anchorNotFound' });
    expect(lost).to.equal(3);
  });

  it('reports "cannot calculate changes" for every way Cyrus says so', () => {
    const cyrusBadState: Array<[string, Record<string, unknown>, string]> = [['error', { type: 'invalidArguments', arguments: ['sinceState'] }, 'c']];
    expect(() => readEmailChanges(cyrusBadState, 'c', 'abc'))
      .to.throw(JmapMethodError)
      .that.includes({ type: 'cannotCalculateChanges', serverType: 'invalidArguments' });
    const otherArgument: Array<[string, Record<string, unknown>, string]> = [['error', { type: 'invalidArguments', arguments: ['maxChanges'] }, 'c']];
    expect(() => readEmailChanges(otherArgument, 'c', '5'))
      .to.throw(JmapMethodError)
      .that.includes({ type: 'invalidArguments' });
    const changes = (oldState: string, newState: string): Array<[string, Record<string, unknown>, string]> => [
      ['Email/changes', { oldState, newState, created: ['n'], updated: null, destroyed: ['d'] }, 'c'],
    ];
    // A reset server accepts a numeric state it never issued and answers a LOWER one.
    expect(() => readEmailChanges(changes('40', '3'), 'c', '40'))
      .to.throw(JmapMethodError)
      .that.includes({ type: 'cannotCalculateChanges' });
    expect(readEmailChanges(changes('3', '40'), 'c', '3')).to.deep.equal({ oldState: '3', newState: '40', hasMoreChanges: false, created: ['n'], updated: [], destroyed: ['d'] });
    // Opaque (non-numeric) states are never compared.
    expect(readEmailChanges(changes('b', 'a'), 'c', 'b').newState).to.equal('a');
    expect(() => readEmailChanges([['Email/changes', { created: [] }, 'c']], 'c', '1')).to.throw(JmapProtocolError, /without states/);
  });

  it('asks Email/changes with the saved state and a bound, and reads the current state from Email/get', async () => {
    const server = new FakeJmap({
      methods: {
        'Email/changes': (args) => ({ oldState: args.sinceState, newState: '23', hasMoreChanges: true, created: [], updated: ['u'], destroyed: [] }),
        'Email/get': (args) => ((args.ids as string[]).length === 0 ? { state: '22', list: [] } : { list: [] }),
      },
    });
    const client = clientFor(server);
    expect(await emailChanges(client, ACCOUNT, '22', 100)).to.include({ newState: '23', hasMoreChanges: true });
    expect(server.calls[0][1]).to.deep.equal({ accountId: ACCOUNT, sinceState: '22', maxChanges: 100 });
    expect(await getEmailState(client, ACCOUNT)).to.equal('22');
    const stateless = new FakeJmap({ methods: { 'Email/get': () => ({ list: [] }) } });
    expect(await failure(getEmailState(clientFor(stateless), ACCOUNT))).to.be.instanceOf(JmapProtocolError);
  });

  it('sets and clears $seen in parts of maxObjectsInSet, collecting what the server refused', async () => {
    const server = withLimits(
      { maxObjectsInSet: 2 },
      {
        methods: {
          'Email/set': (args) => {
            const ids = Object.keys(args.update as object);
            return {
              newState: `n${ids[0]}`,
              updated: Object.fromEntries(ids.filter((id) => id !== 'b').map((id) => [id, null])),
              notUpdated: ids.includes('b') ? { b: { type: 'notFound' } } : null,
            };
          },
        },
      },
    );
    const result = await setSeen(clientFor(server), ACCOUNT, { a: true, b: false, c: false });
    expect(result).to.deep.equal({ updated: ['a', 'c'], notUpdated: { b: { type: 'notFound' } }, newState: 'nc' });
    expect(server.calls.map((c) => c[1].update)).to.deep.equal([{ a: { 'keywords/$seen': true }, b: { 'keywords/$seen': null } }, { c: { 'keywords/$seen': null } }]);
  });

  it('queries and gets the first page in one request, the page no larger than maxObjectsInGet', async () => {
    const server = withLimits(
      { maxObjectsInGet: 5 },
      {
        methods: {
          'Email/query': () => ({ ids: ['a'], queryState: 'q', position: 0, total: 1 }),
          'Email/get': () => ({ state: 's', list: [{ id: 'a' }] }),
        },
      },
    );
    const result = await queryAndGet(clientFor(server), ACCOUNT, { limit: 100 }, ['id']);
    expect(result).to.deep.include({ list: [{ id: 'a' }], notFound: [], state: 's' });
    expect(server.apiRequests).to.have.length(1);
    const [query, get] = server.calls;
    expect(query[1].limit).to.equal(5);
    expect(get[1]['#ids']).to.deep.equal({ resultOf: query[2], name: 'Email/query', path: '/ids' });
  });

  it('expands session URL templates with each value percent-encoded', () => {
    const template = '/jmap/download/{accountId}/{blobId}/{name}?accept={type}';
    expect(expandUrlTemplate(template, { accountId: 'a@x.sk', blobId: 'G1', name: 'Výkaz 1/2?.pdf', type: 'application/pdf' })).to.equal(
      '/jmap/download/a%40x.sk/G1/V%C3%BDkaz%201%2F2%3F.pdf?accept=application%2Fpdf',
    );
    expect(expandUrlTemplate('/u/{accountId}/{missing}', { accountId: 'a' })).to.equal('/u/a/');
  });
});

describe('unit: JMAP sending', () => {
  const identities = [
    { id: 'i1', email: 'alias@example.test', name: 'Alias' },
    { id: 'i2', email: 'ALICE@example.test', name: 'Alice' },
  ];

  it('prepares a send: Drafts and Sent from the recorded mailboxes, the identity of the address, the original', async () => {
    const server = new FakeJmap({
      methods: {
        'Mailbox/get': () => ({ list: RECORDED_MAILBOXES }),
        'Identity/get': () => ({ list: identities }),
        'Email/get': (args) => ({ list: [{ id: (args.ids as string[])[0], subject: 'Ponuka' }] }),
      },
    });
    const setup = await prepareSend(clientFor(server), ACCOUNT, 'alice@example.test', 'M9');
    expect(setup.draftsId).to.equal('otg5gezzq4qcsgdaclxmkpb9');
    expect(setup.sentId).to.equal('b36lf7ihr8tg0xd3op3jujjv');
    expect(setup.identity.id).to.equal('i2');
    expect(setup.original).to.deep.equal({ id: 'M9', subject: 'Ponuka' });
    expect(setup.excludedIds).to.have.members(['otg5gezzq4qcsgdaclxmkpb9', 'jo407fn9pjuibq9ww1g91ofy', '0b0sjto07hjb6mugltsvb4qs']);
    expect(server.apiRequests[0].body!.using).to.include('urn:ietf:params:jmap:submission');
  });

  it('falls back to the first identity, and refuses an account without Drafts/Sent or without identities', async () => {
    const make = (boxes: unknown[], ids: unknown[]) => new FakeJmap({ methods: { 'Mailbox/get': () => ({ list: boxes }), 'Identity/get': () => ({ list: ids }) } });
    expect((await prepareSend(clientFor(make(RECORDED_MAILBOXES, identities)), ACCOUNT, 'other@example.test')).identity.id).to.equal('i1');
    const noSent = RECORDED_MAILBOXES.filter((b) => b.role !== 'sent');
    expect((await failure(prepareSend(clientFor(make(noSent, identities)), ACCOUNT, 'a@x'))).message).to.match(/no Drafts or Sent/);
    expect((await failure(prepareSend(clientFor(make(RECORDED_MAILBOXES, [])), ACCOUNT, 'a@x'))).message).to.match(/no sending identity/);
  });

  const setup: SendSetup = { draftsId: 'D', sentId: 'S', excludedIds: [], identity: { id: 'i1', email: 'alice@example.test', name: 'Alice' } };
  const envelope = { mailFrom: 'alice@example.test', rcptTo: ['bob@example.test'] };

  it('creates and submits in one request; on success the draft moves to Sent and loses $draft', async () => {
    const server = new FakeJmap({
      methods: {
        'Email/set': () => ({ created: { d1: { id: 'E1' } } }),
        'EmailSubmission/set': () => ({ created: { s1: { id: 'SUB1' } } }),
        'Email/get': () => ({ list: [{ id: 'E1' }] }),
      },
    });
    const outcome = await createAndSubmit(clientFor(server), ACCOUNT, setup, { draft: { subject: 'x' }, envelope }, { properties: ['id'] });
    expect(outcome).to.deep.equal({ ok: true, emailId: 'E1', submissionId: 'SUB1', email: { id: 'E1' } });
    const [create, submit] = server.calls;
    expect(create[1].create).to.deep.equal({ d1: { subject: 'x', mailboxIds: { D: true }, keywords: { $draft: true, $seen: true } } });
    expect(submit[1].onSuccessUpdateEmail).to.deep.equal({ '#s1': { 'mailboxIds/D': null, 'mailboxIds/S': true, 'keywords/$draft': null } });
    expect((submit[1].create as Record<string, { envelope: unknown }>).s1.envelope).to.deep.equal({
      mailFrom: { email: 'alice@example.test' },
      rcptTo: [{ email: 'bob@example.test' }],
    });
  });

  it('a refused message is stage "email"; a refused submission destroys the draft (nothing was sent)', async () => {
    const refusedEmail = new FakeJmap({
      methods: {
        'Email/set': () => ({ notCreated: { d1: { type: 'overQuota' } } }),
        'EmailSubmission/set': (_a, id) => [['error', { type: 'invalidResultReference' }, id]],
        'Email/get': () => ({ list: [] }),
      },
    });
    expect(await createAndSubmit(clientFor(refusedEmail), ACCOUNT, setup, { draft: {}, envelope }, { properties: ['id'] })).to.deep.equal({
      ok: false,
      stage: 'email',
      error: { type: 'overQuota' },
    });

    const destroyed: unknown[] = [];
    const refusedSubmission = new FakeJmap({
      methods: {
        'Email/set': (args) => {
          if (args.destroy) {
            destroyed.push(...(args.destroy as string[]));
            return { destroyed: args.destroy };
          }
          return { created: { d1: { id: 'E2' } } };
        },
        'EmailSubmission/set': () => ({ notCreated: { s1: { type: 'forbiddenFrom' } } }),
        'Email/get': () => ({ list: [] }),
      },
    });
    const outcome = await createAndSubmit(clientFor(refusedSubmission), ACCOUNT, setup, { draft: {}, envelope }, { properties: ['id'] });
    expect(outcome).to.deep.equal({ ok: false, stage: 'submission', error: { type: 'forbiddenFrom' }, draftLeft: false });
    expect(destroyed).to.deep.equal(['E2']);
  });
});
