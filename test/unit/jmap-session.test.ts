/**
 * The JMAP client's session discovery and how it classifies every kind of failure, against the
 * in-process fake server (test/unit/support/fake-jmap.ts) answering Cyrus's recorded session.
 */
import { expect } from 'chai';
import {
  CORE_CAPABILITY,
  fetchSession,
  JmapAuthError,
  JmapClient,
  JmapProtocolError,
  JmapTimeoutError,
  JmapUnreachableError,
  parseSession,
  resolveSessionUrl,
  validateMailCredentials,
  type FetchImpl,
} from '../../src/jmap/index.js';
import { ACCOUNT, BASE, FakeJmap, json, recordedSession, SESSION_URL } from './support/fake-jmap.js';

const alice = { kind: 'basic', username: ACCOUNT, password: 'alicepw' } as const;

async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (err: Error) => err,
  );
}

describe('unit: JMAP session discovery', () => {
  it('reads the recorded Cyrus session: absolute URLs, templates kept intact, the core limits', async () => {
    const server = new FakeJmap();
    const session = await fetchSession(SESSION_URL, alice, { fetchImpl: server.fetch });
    expect(session.apiUrl).to.equal(`${BASE}/jmap/`);
    expect(session.downloadUrl).to.equal(`${BASE}/jmap/download/{accountId}/{blobId}/{name}?accept={type}`);
    expect(session.eventSourceUrl).to.equal(`${BASE}/jmap/eventsource/?types={types}&closeafter={closeafter}&ping={ping}`);
    expect(session.limits).to.deep.equal({
      maxSizeRequest: 10485760,
      maxCallsInRequest: 50,
      maxObjectsInGet: 4096,
      maxObjectsInSet: 4096,
      maxConcurrentRequests: 5,
      maxSizeUpload: 1073741824,
    });
    expect(session.username).to.equal(ACCOUNT);
  });

  it('authenticates with Basic over UTF-8 (a Slovak password survives), or with a bearer token', async () => {
    const server = new FakeJmap();
    await fetchSession(SESSION_URL, { kind: 'basic', username: ACCOUNT, password: 'žlťučký kôň' }, { fetchImpl: server.fetch });
    await fetchSession(SESSION_URL, { kind: 'bearer', token: 'tok-123' }, { fetchImpl: server.fetch });
    const [basic, bearer] = server.requests.map((r) => r.authorization);
    expect(Buffer.from(basic!.replace(/^Basic /, ''), 'base64').toString('utf8')).to.equal(`${ACCOUNT}:žlťučký kôň`);
    expect(bearer).to.equal('Bearer tok-123');
  });

  it('resolves relative URLs against where the session came from, keeping RFC 6570 braces', () => {
    const base = 'http://mail.example:8080/jmap';
    expect(resolveSessionUrl('/api/', base)).to.equal('http://mail.example:8080/api/');
    expect(resolveSessionUrl('https://other.example/x', base)).to.equal('https://other.example/x');
    expect(resolveSessionUrl('up/{accountId}/', 'http://mail.example/jmap/')).to.equal('http://mail.example/jmap/up/{accountId}/');
    expect(resolveSessionUrl('/d/{accountId}/{blobId}?accept={type}', base)).to.equal('http://mail.example:8080/d/{accountId}/{blobId}?accept={type}');
    expect(() => resolveSessionUrl('http://[bad', base)).to.throw(JmapProtocolError, /cannot be resolved/);
  });

  it('refuses a session without the mail capability, naming it', () => {
    const body = recordedSession();
    delete (body.capabilities as Record<string, unknown>)['urn:ietf:params:jmap:mail'];
    expect(() => parseSession(body, SESSION_URL, [CORE_CAPABILITY, 'urn:ietf:params:jmap:mail'])).to.throw(JmapProtocolError, 'lacks the capability urn:ietf:params:jmap:mail');
  });

  it('refuses core limits that are not positive whole numbers (a server saying maxCallsInRequest 0)', () => {
    const body = recordedSession();
    (body.capabilities as Record<string, Record<string, unknown>>)[CORE_CAPABILITY].maxCallsInRequest = 0;
    expect(() => parseSession(body, SESSION_URL, [CORE_CAPABILITY])).to.throw(JmapProtocolError, /invalid core limits/);
    expect(() => parseSession({ ...recordedSession(), apiUrl: '' }, SESSION_URL, [])).to.throw(JmapProtocolError, /unexpected shape/);
    expect(() => parseSession([], SESSION_URL, [])).to.throw(JmapProtocolError, /unexpected shape/);
  });

  it('tolerates a session without download, upload and event-source URLs (unused for sync)', () => {
    const body = recordedSession();
    delete body.downloadUrl;
    delete body.uploadUrl;
    delete body.eventSourceUrl;
    const session = parseSession(body, SESSION_URL, [CORE_CAPABILITY]);
    expect(session.downloadUrl).to.equal(undefined);
    expect(session.uploadUrl).to.equal(undefined);
    expect(session.apiUrl).to.equal(`${BASE}/jmap/`);
  });

  it('checks linked mail credentials: answers the primary mail account, refuses a session without one', async () => {
    expect(await validateMailCredentials(SESSION_URL, ACCOUNT, 'pw', { fetchImpl: new FakeJmap().fetch })).to.deep.equal({ accountId: ACCOUNT });
    const noPrimary = new FakeJmap({ session: recordedSession({ primaryAccounts: {} }) });
    expect((await failure(validateMailCredentials(SESSION_URL, ACCOUNT, 'pw', { fetchImpl: noPrimary.fetch }))).message).to.match(/no primary mail account/);
    const notMail = new FakeJmap({
      session: recordedSession({ accounts: { [ACCOUNT]: { name: ACCOUNT, isPersonal: true, isReadOnly: false, accountCapabilities: {} } } }),
    });
    expect((await failure(validateMailCredentials(SESSION_URL, ACCOUNT, 'pw', { fetchImpl: notMail.fetch }))).message).to.match(/is not a mail account/);
  });
});

describe('unit: JMAP failures are classified', () => {
  const answering = (response: () => Response) => new FakeJmap({ respond: () => response() }).fetch;

  it('401 is a wrong password; 403 is a server refusing the client, not the account', async () => {
    const wrong = await failure(fetchSession(SESSION_URL, alice, { fetchImpl: answering(() => new Response('no', { status: 401 })) }));
    expect(wrong).to.be.instanceOf(JmapAuthError).and.to.include({ status: 401, kind: 'auth', retryable: false });
    expect((wrong as JmapAuthError).refusesClient).to.equal(false);
    const refused = await failure(fetchSession(SESSION_URL, alice, { fetchImpl: answering(() => new Response('no', { status: 403 })) }));
    expect((refused as JmapAuthError).refusesClient).to.equal(true);
  });

  it('keeps the RFC 7807 problem type of a request-level error; 5xx and 429 are retryable, 4xx not', async () => {
    const problem = { type: 'urn:ietf:params:jmap:error:limit', limit: 'maxSizeRequest', status: 400 };
    const limit = await failure(fetchSession(SESSION_URL, alice, { fetchImpl: answering(() => json(problem, 400)) }));
    expect(limit).to.be.instanceOf(JmapProtocolError).and.to.include({ status: 400, problemType: problem.type, retryable: false });
    expect(limit.message).to.contain('limit maxSizeRequest');
    for (const [status, retryable] of [
      [500, true],
      [503, true],
      [429, true],
      [404, false],
    ] as const) {
      const err = await failure(fetchSession(SESSION_URL, alice, { fetchImpl: answering(() => new Response('<html>', { status })) }));
      expect(err, String(status)).to.be.instanceOf(JmapProtocolError).and.to.include({ status, retryable });
    }
  });

  it('a 200 whose body is not JSON is a protocol error, not a crash', async () => {
    const err = await failure(fetchSession(SESSION_URL, alice, { fetchImpl: answering(() => new Response('<html>proxy login</html>')) }));
    expect(err).to.be.instanceOf(JmapProtocolError);
    expect(err.message).to.match(/not JSON/);
  });

  it('no answer at all is "unreachable" with the system error code, and retryable', async () => {
    const refused: FetchImpl = () =>
      Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }) }));
    const err = await failure(fetchSession(SESSION_URL, alice, { fetchImpl: refused }));
    expect(err).to.be.instanceOf(JmapUnreachableError).and.to.include({ code: 'ECONNREFUSED', retryable: true });
    expect(err.message).to.contain('ECONNREFUSED');
  });

  it('a server that never answers times out after the configured time', async () => {
    const stalls: FetchImpl = (_url, init) => new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
    const err = await failure(fetchSession(SESSION_URL, alice, { fetchImpl: stalls, timeoutMs: 30 }));
    expect(err).to.be.instanceOf(JmapTimeoutError).and.to.include({ timeoutMs: 30, retryable: true });
  });

  it("a caller's abort is rethrown as the caller's own reason, not dressed up as a JMAP error", async () => {
    const stop = new AbortController();
    const reason = new Error('shutting down');
    let started!: () => void;
    const requestSent = new Promise<void>((resolve) => (started = resolve));
    const server = new FakeJmap();
    const stallsApi: FetchImpl = (url, init) => {
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the client passes a string or a URL
      if (String(url) === SESSION_URL) return server.fetch(url, init);
      return new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(new Error('aborted')));
        started();
      });
    };
    const client = new JmapClient({ sessionUrl: SESSION_URL, credentials: alice, fetchImpl: stallsApi, timeoutMs: 10_000 });
    const pending = failure(client.call([['Core/echo', {}, 'a']], { signal: stop.signal }));
    await requestSent;
    stop.abort(reason);
    expect(await pending).to.equal(reason);
  });
});
