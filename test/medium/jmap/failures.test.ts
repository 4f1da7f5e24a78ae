/**
 * How the JMAP client behaves against servers that misbehave: each case runs a small HTTP server on
 * 127.0.0.1 (random port) that refuses, stalls or answers nonsense. No Cyrus needed.
 */
import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import {
  fetchSession,
  JmapAuthError,
  JmapClient,
  JmapProtocolError,
  JmapTimeoutError,
  JmapUnreachableError,
  validateMailCredentials,
  type JmapCredentials,
} from '../../../src/jmap/index.js';

const basic: JmapCredentials = { kind: 'basic', username: 'alice@example.test', password: 'pw' };

interface FakeServer {
  url: string;
  requests: { method?: string; url?: string; authorization?: string }[];
  close(): Promise<void>;
}

async function fakeServer(handler: http.RequestListener): Promise<FakeServer> {
  const requests: FakeServer['requests'] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method, url: req.url, authorization: req.headers.authorization });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sessionJson(overrides: Record<string, unknown> = {}, capabilities?: Record<string, unknown>) {
  return {
    capabilities: capabilities ?? {
      'urn:ietf:params:jmap:core': {
        maxSizeUpload: 1000000,
        maxConcurrentUpload: 4,
        maxSizeRequest: 1000000,
        maxConcurrentRequests: 4,
        maxCallsInRequest: 16,
        maxObjectsInGet: 500,
        maxObjectsInSet: 500,
        collationAlgorithms: [],
      },
      'urn:ietf:params:jmap:mail': {},
    },
    accounts: { A1: { name: 'alice', isPersonal: true, isReadOnly: false, accountCapabilities: { 'urn:ietf:params:jmap:mail': {} } } },
    primaryAccounts: { 'urn:ietf:params:jmap:mail': 'A1' },
    username: 'alice',
    apiUrl: 'api/',
    downloadUrl: 'download/{accountId}/{blobId}/{name}?type={type}',
    uploadUrl: '/up/{accountId}/',
    eventSourceUrl: 'https://push.example.test/es?types={types}',
    state: 's1',
    ...overrides,
  };
}

function sendJson(res: http.ServerResponse, body: unknown, status = 200) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the promise to reject');
}

describe('jmap client against misbehaving servers', () => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('a closed port gives JmapUnreachableError with ECONNREFUSED', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const err = await rejection(fetchSession(`http://127.0.0.1:${port}/.well-known/jmap`, basic, { timeoutMs: 2000 }));
    expect(err).to.be.instanceOf(JmapUnreachableError);
    expect((err as JmapUnreachableError).code).to.equal('ECONNREFUSED');
    expect((err as JmapUnreachableError).kind).to.equal('unreachable');
    expect((err as JmapUnreachableError).retryable).to.equal(true);
  });

  it('an unresolvable host gives JmapUnreachableError', async () => {
    const err = await rejection(fetchSession('http://no-such-host.invalid/.well-known/jmap', basic, { timeoutMs: 5000 }));
    expect(err).to.be.instanceOf(JmapUnreachableError);
    expect((err as JmapUnreachableError).code).to.be.oneOf(['ENOTFOUND', 'EAI_AGAIN']);
  });

  it('a server that never answers gives JmapTimeoutError after the timeout', async () => {
    let abandoned!: () => void;
    const requestAbandoned = new Promise<void>((resolve) => (abandoned = resolve));
    // The server holds the request and never answers; it sees the client give up (the socket closes).
    server = await fakeServer((req) => req.socket.once('close', abandoned));
    const err = await rejection(fetchSession(`${server.url}/.well-known/jmap`, basic, { timeoutMs: 300 }));
    expect(err).to.be.instanceOf(JmapTimeoutError);
    expect((err as JmapTimeoutError).timeoutMs).to.equal(300);
    // The request did reach the server (a timeout, not a refused connection), and was abandoned, not left open.
    expect(server.requests).to.have.length(1);
    await requestAbandoned;
  });

  it('a server that sends headers and then stalls the body also times out', async () => {
    server = await fakeServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"capabilities":');
    });
    const err = await rejection(fetchSession(`${server.url}/jmap`, basic, { timeoutMs: 300 }));
    expect(err).to.be.instanceOf(JmapTimeoutError);
  });

  it('a body that is not JSON gives JmapProtocolError', async () => {
    server = await fakeServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<html>hello, not JMAP</html>');
    });
    const err = await rejection(fetchSession(`${server.url}/jmap`, basic, { timeoutMs: 2000 }));
    expect(err).to.be.instanceOf(JmapProtocolError);
    expect(err.message).to.match(/not JSON/);
  });

  it('JSON of the wrong shape gives JmapProtocolError', async () => {
    server = await fakeServer((_req, res) => sendJson(res, { hello: 'world' }));
    const err = await rejection(fetchSession(`${server.url}/jmap`, basic, { timeoutMs: 2000 }));
    expect(err).to.be.instanceOf(JmapProtocolError);
    expect(err.message).to.match(/unexpected shape/);
  });

  it('an unexpected HTTP status gives JmapProtocolError with the status', async () => {
    server = await fakeServer((_req, res) => sendJson(res, { error: 'boom' }, 500));
    const err = await rejection(fetchSession(`${server.url}/jmap`, basic, { timeoutMs: 2000 }));
    expect(err).to.be.instanceOf(JmapProtocolError);
    expect((err as JmapProtocolError).status).to.equal(500);
    expect((err as JmapProtocolError).retryable).to.equal(true);
  });

  it('401 and 403 give JmapAuthError', async () => {
    for (const status of [401, 403]) {
      const s = await fakeServer((_req, res) => sendJson(res, {}, status));
      const err = await rejection(fetchSession(`${s.url}/jmap`, basic, { timeoutMs: 2000 }));
      await s.close();
      expect(err).to.be.instanceOf(JmapAuthError);
      expect((err as JmapAuthError).status).to.equal(status);
    }
  });

  it('a session without the mail capability is a JmapProtocolError; validateMailCredentials refuses it', async () => {
    const core = sessionJson().capabilities;
    delete core['urn:ietf:params:jmap:mail'];
    server = await fakeServer((_req, res) => sendJson(res, sessionJson({}, core)));
    const err = await rejection(validateMailCredentials(`${server.url}/jmap`, 'alice', 'pw', { timeoutMs: 2000 }));
    expect(err).to.be.instanceOf(JmapProtocolError);
    expect(err.message).to.contain('urn:ietf:params:jmap:mail');
  });

  it('resolves relative URLs against the final URL after redirects, keeping template braces', async () => {
    server = await fakeServer((req, res) => {
      if (req.url === '/.well-known/jmap') {
        res.writeHead(302, { Location: '/v2/session/' });
        res.end();
      } else sendJson(res, sessionJson());
    });
    const session = await fetchSession(`${server.url}/.well-known/jmap`, basic, { timeoutMs: 2000 });
    expect(session.sessionUrl).to.equal(`${server.url}/v2/session/`);
    expect(session.apiUrl).to.equal(`${server.url}/v2/session/api/`);
    expect(session.downloadUrl).to.equal(`${server.url}/v2/session/download/{accountId}/{blobId}/{name}?type={type}`);
    expect(session.uploadUrl).to.equal(`${server.url}/up/{accountId}/`);
    expect(session.eventSourceUrl).to.equal('https://push.example.test/es?types={types}');
    expect(session.limits.maxObjectsInGet).to.equal(500);
    // the credentials went along on the same-origin redirect
    expect(server.requests.map((r) => r.authorization)).to.deep.equal(Array(2).fill(`Basic ${Buffer.from('alice@example.test:pw').toString('base64')}`));
  });

  it('sends Bearer credentials as an Authorization: Bearer header', async () => {
    server = await fakeServer((req, res) => (req.headers.authorization === 'Bearer t0ken' ? sendJson(res, sessionJson()) : sendJson(res, {}, 401)));
    const session = await fetchSession(`${server.url}/jmap`, { kind: 'bearer', token: 't0ken' }, { timeoutMs: 2000 });
    expect(session.primaryAccounts['urn:ietf:params:jmap:mail']).to.equal('A1');
    const err = await rejection(fetchSession(`${server.url}/jmap`, { kind: 'bearer', token: 'wrong' }, { timeoutMs: 2000 }));
    expect(err).to.be.instanceOf(JmapAuthError);
  });

  it('an API answer without methodResponses is a JmapProtocolError', async () => {
    server = await fakeServer((req, res) => (req.method === 'GET' ? sendJson(res, sessionJson()) : sendJson(res, { ok: true })));
    const client = new JmapClient({ sessionUrl: `${server.url}/jmap`, credentials: basic, timeoutMs: 2000 });
    const err = await rejection(client.call([['Email/get', { accountId: 'A1', ids: [] }, 'c1']]));
    expect(err).to.be.instanceOf(JmapProtocolError);
  });

  it('notes a changed sessionState and re-fetches the session before the next call', async () => {
    let sessionState = 's1';
    server = await fakeServer((req, res) => {
      if (req.method === 'GET') return sendJson(res, sessionJson({ state: sessionState }));
      sendJson(res, { methodResponses: [['Email/get', { state: '1', list: [], notFound: [] }, 'c1']], sessionState });
    });
    const changes: [string, string][] = [];
    const client = new JmapClient({
      sessionUrl: `${server.url}/jmap`,
      credentials: basic,
      timeoutMs: 2000,
      onSessionChanged: (from, to) => changes.push([from, to]),
    });
    await client.call([['Email/get', { accountId: 'A1', ids: [] }, 'c1']]);
    expect(client.sessionChanged).to.equal(0);
    expect(client.requestCount).to.equal(2);

    sessionState = 's2';
    await client.call([['Email/get', { accountId: 'A1', ids: [] }, 'c1']]);
    expect(client.sessionChanged).to.equal(1);
    expect(changes).to.deep.equal([['s1', 's2']]);
    expect((await client.session()).state).to.equal('s2');
    expect(client.requestCount).to.equal(4); // session, call, call, session again
    expect(server.requests.filter((r) => r.method === 'GET')).to.have.length(2);
  });
});
