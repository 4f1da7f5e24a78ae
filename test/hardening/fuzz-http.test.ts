import { expect } from 'chai';
import fc from 'fast-check';
import { createAppContext, type AppContext } from '../../src/app/context.js';
import { startServer, type RunningServer } from '../../src/app/server.js';
import { testContext } from '../support/harness.js';
import { headerText, idSegment, nastyString, percentEncode } from './support/arbitraries.js';
import { dbSnapshot } from './support/db-snapshot.js';
import { describeFuzz, fuzzParameters, fuzzRuns } from './support/fuzz.js';
import { expectErrorEnvelope, expectSafeAnswer } from './support/invariants.js';
import { sendRawBytes } from './support/raw-http.js';
import { buildWorld, type World } from './support/world.js';

// The public and operational routes, and paths that are no route at all.
describeFuzz('hardening: fuzzing /api/health, /api/openapi.json, metrics and unknown paths', [
  { method: 'GET', path: '/api/health', runs: 100, expectAccepted: true },
  { method: 'GET', path: '/api/health/ready', runs: 100, expectAccepted: true },
  { method: 'GET', path: '/api/openapi.json', runs: 100, expectAccepted: true },
  { method: 'GET', path: '/api/metrics', runs: 100 },
  { method: 'PUT', path: '/api/contacts/:id', runs: 80 },
  { method: 'POST', path: '/api/:id', runs: 80 },
  { method: 'GET', path: '/:id', runs: 80 },
]);

const ROUTE_PATHS = [
  '/api/health',
  '/api/auth/login',
  '/api/auth/me',
  '/api/contacts',
  '/api/contacts/:id',
  '/api/emails/:id/thread',
  '/api/emails/contact/:id/read',
  '/api/timesheets/upload',
  '/api/timesheets/:id/download',
  '/api/admin/users/:id',
  '/api/email-accounts/:id/sync',
];

interface RawCase {
  method: string;
  target: string;
  version: string;
  host: 'ok' | 'missing' | 'twice' | 'empty';
  headers: string[];
  body: string;
}

/** A request line, headers and body as any client (or attacker) may write them, always asking to close. */
function rawCases(world: World): fc.Arbitrary<RawCase> {
  const target = fc.oneof(
    { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...ROUTE_PATHS), idSegment(world.ids)).map(([p, id]) => p.replace(':id', id)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '*',
        'http://evil.example/api/health',
        'api/health',
        '//api//contacts',
        '/api/..%2f..%2fetc%2fpasswd',
        '/api/%',
        '/api/contacts?%',
        '/api/health#x',
        `/api/${'a'.repeat(9000)}`,
        '/%00',
      ),
    },
    { weight: 1, arbitrary: nastyString.map((s) => `/api/${percentEncode(s.slice(0, 200))}`) },
  );
  const header = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(`Authorization: ${world.owner.session.bearer}`, `Cookie: ${world.admin.session.cookie}`, 'Content-Type: application/json', 'Accept: */*'),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'Expect: 100-continue',
        'Expect: fancy',
        'Content-Length: -1',
        'Content-Length: abc',
        'Content-Length: 0',
        'Content-Length: 1, 2',
        'Transfer-Encoding: chunked',
        'Transfer-Encoding: gzip, chunked',
        'Transfer-Encoding: x',
        'NoColonHere',
        'Bad Header: x',
        ' folded: continuation',
        `X-Big: ${'b'.repeat(17_000)}`,
        `Cookie: ${'c=1; '.repeat(4000)}`,
        'Content-Type: multipart/form-data; boundary=x',
        'Upgrade: websocket',
        'Connection: Upgrade',
      ),
    },
    { weight: 1, arbitrary: headerText.map((v) => `X-Fuzz: ${v}`) },
  );
  return fc.record({
    method: fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE') },
      { weight: 2, arbitrary: fc.constantFrom('PUT', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'CONNECT', 'get', 'G ET', 'X'.repeat(300), '') },
    ),
    target,
    version: fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1 x', 'FTP/1.0', ''),
    host: fc.constantFrom<RawCase['host']>('ok', 'ok', 'ok', 'missing', 'twice', 'empty'),
    headers: fc.array(header, { maxLength: 4 }),
    body: fc.oneof(
      fc.constant(''),
      fc.constantFrom('{}', '{"a":', '0\r\n\r\n', 'zz\r\nabc\r\n0\r\n\r\n'),
      nastyString.map((s) => s.slice(0, 500)),
    ),
  });
}

function encodeCase(c: RawCase): Buffer {
  const lines = [`${c.method} ${c.target} ${c.version}`.replace(/\s+$/, '')];
  if (c.host === 'ok') lines.push('Host: crm.test');
  if (c.host === 'twice') lines.push('Host: a.test', 'Host: b.test');
  if (c.host === 'empty') lines.push('Host:');
  lines.push(...c.headers, 'Connection: close');
  const body = Buffer.from(c.body, 'utf8');
  const framed = c.headers.some((h) => /^(content-length|transfer-encoding)/i.test(h));
  if (!framed && body.length > 0) lines.push(`Content-Length: ${body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
}

describe('hardening: raw HTTP against the real server (malformed framing, oversized headers, odd request lines)', function () {
  this.timeout(300_000);
  let world: World;
  let server: RunningServer;
  let serverCtx: AppContext;
  let port: number;

  before(async () => {
    const shared = await testContext();
    world = await buildWorld(shared);
    // The server `crm-admin serve` runs (startServer), in process: Node's own HTTP layer included. On
    // services of its own: stopping it shuts its sync down, which must not be the suite's shared one.
    serverCtx = await createAppContext({ config: shared.config, logger: shared.logger, db: shared.db });
    server = await startServer(serverCtx, { api: true, sync: false, port: 0, host: '127.0.0.1' });
    port = Number(new URL(server.url).port);
  });
  after(() => server?.stop());

  it('answers what Node itself refuses in the envelope too: 431, 400, 417', async () => {
    const cases: Array<[string, number]> = [
      [`GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`, 431],
      ['GARBAGE\r\n\r\n', 400],
      ['GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n', 400],
      ['POST /api/contacts HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\nConnection: close\r\n\r\n', 400],
      ['POST /api/contacts HTTP/1.1\r\nHost: x\r\nExpect: fancy\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}', 417],
      ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 400],
    ];
    for (const [bytes, status] of cases) {
      const res = await sendRawBytes(port, bytes);
      expect(res.status, res.raw.slice(0, 300)).to.equal(status);
      expectErrorEnvelope(res, JSON.stringify(bytes.slice(0, 80)));
    }
  });

  it('never a 5xx, never a hang, errors in the envelope whatever bytes arrive', async () => {
    const ctx = await testContext();
    await fc.assert(
      fc.asyncProperty(rawCases(world), async (c) => {
        // An accepted "sync now" (POST /api/email-accounts/:id/sync) leaves a sync running in the
        // background; it must not land inside the next case's before/after window.
        await serverCtx.services.mailSync.whenIdle();
        const before = await dbSnapshot(ctx.db.sequelize, [world.owner.id, world.admin.id]);
        const bytes = encodeCase(c);
        const res = await sendRawBytes(port, bytes);
        const request = { method: c.method, path: c.target, headers: {}, body: bytes.toString('latin1') };
        expect(res.status, `no answer at all to ${JSON.stringify(bytes.toString('latin1').slice(0, 300))}`).to.be.greaterThan(0);
        expectSafeAnswer(request, res);
        if (res.status >= 400) {
          const after = await dbSnapshot(ctx.db.sequelize, [world.owner.id, world.admin.id]);
          const changed = Object.keys(before).filter((table) => after[table] !== before[table]);
          expect(changed, `database changed by a rejected ${c.method} ${c.target} (${res.status})`).to.deep.equal([]);
        }
      }),
      fuzzParameters(fuzzRuns(300)),
    );
  });
});
