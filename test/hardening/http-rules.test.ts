import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { Email, Session, User } from '../../src/models/index.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createContact, createEmail, createEmailAccount } from '../support/email-factories.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp } from '../support/harness.js';
import { loginViaHttp, parseSetCookies, randomIp } from '../support/login.js';
import { expectSlovakMessages } from './support/invariants.js';

/**
 * The HTTP rules of docs/contract.md §5 that are security findings (issue 13): CSRF,
 * cookie tossing, no-store, 405. Each test fails without its fix.
 */

const HOST = 'crm.example.sk';
const FOREIGN = 'https://evil.example';
const FRONTEND = 'https://app.example.sk';

interface Member {
  fixture: UserFixture;
  session: TestSession;
  accountId: string;
  contactId: string;
  emailId: string;
}

async function member(): Promise<Member> {
  const fixture = await createUser();
  const account = await createEmailAccount(fixture, { password: 'not-a-real-mail-password' });
  const contact = await createContact(account);
  const email = await createEmail(account, contact, { subject: 'CSRF' });
  return { fixture, session: await sessionFor(fixture), accountId: account.id, contactId: contact.id, emailId: email.id };
}

/** The state-changing, body-less POSTs a foreign page can make a browser send with our cookie. */
function bodylessPosts(m: Member, victimId: string): Array<[string, string]> {
  return [
    ['logout', '/api/auth/logout'],
    ['skip-email', '/api/auth/skip-email'],
    ['mark-read', `/api/emails/contact/${m.contactId}/read`],
    ['sync', `/api/email-accounts/${m.accountId}/sync`],
    ['admin reset-password', `/api/admin/users/${victimId}/reset-password`],
  ];
}

/** What those requests would change: all of it must stay as it was after a refused one. */
async function stateOf(m: Member, victimId: string) {
  const session = await Session.findByPk(m.session.sessionId);
  const user = await User.findByPk(m.fixture.user.id);
  const email = await Email.findByPk(m.emailId);
  const victim = await User.findByPk(victimId);
  return { revoked: session!.revokedAt, skipped: user!.emailSetupSkipped, read: email!.isRead, victimPassword: victim!.password, victimChanged: victim!.changedPassword };
}

describe('hardening: CSRF (docs/contract.md §5): cookie-authenticated state changes only from our own origin or CORS_ORIGIN', () => {
  let app: Express;
  before(async () => {
    app = await testApp({ CORS_ORIGIN: FRONTEND });
  });

  it('refuses body-less POSTs (text/plain, form, none) from a foreign Origin with 403 csrf_rejected, changing nothing', async () => {
    const m = await member();
    const admin = await sessionFor(await createUser({ role: 'admin' }));
    const victim = await createUser();
    const before = await stateOf(m, victim.user.id);
    for (const [name, path] of bodylessPosts(m, victim.user.id)) {
      const cookie = name === 'admin reset-password' ? admin.cookie : m.session.cookie;
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', undefined]) {
        for (const origin of [{ Origin: FOREIGN }, { Origin: 'null' }, { Origin: `http://${HOST}.evil.example` }, { 'Sec-Fetch-Site': 'cross-site' }]) {
          let req = request(app).post(path).set('Host', HOST).set('Cookie', cookie).set(origin);
          if (type) req = req.set('Content-Type', type);
          const res = await req;
          const context = `${name} ${type} ${JSON.stringify(origin)}`;
          expect(res.status, `${context}: ${JSON.stringify(res.body)}`).to.equal(403);
          expect(res.body.error, context).to.deep.include({ message: 'Požiadavka z cudzieho pôvodu (Origin) bola odmietnutá', statusCode: 403, code: 'csrf_rejected' });
          // What was compared, so that a proxy rewriting Host (or a missing CORS_ORIGIN) can be told apart.
          const reason = 'Origin' in origin ? (origin.Origin === 'null' ? 'origin_not_http' : 'origin_mismatch') : 'cross_site_request';
          expect(res.body.error.details, context).to.deep.equal({
            reason,
            origin: 'Origin' in origin ? origin.Origin : null,
            host: HOST,
            hostFrom: 'Host',
            trustProxy: 0,
            corsOrigins: [FRONTEND],
          });
        }
      }
    }
    expect(await stateOf(m, victim.user.id)).to.deep.equal(before);
  });

  it('refuses a refresh from a foreign Origin (the refresh cookie is a credential too) without rotating', async () => {
    const fixture = await createUser();
    const login = await loginViaHttp(await testApp({ TRUST_PROXY: '1' }), fixture.username, fixture.password!, { rememberMe: true, ip: randomIp() });
    const sessionId = JSON.parse(Buffer.from(login.accessToken!.split('.')[1], 'base64url').toString()).sid as string;
    const before = (await Session.findByPk(sessionId))!.currentJtiHash;
    const res = await request(app).post('/api/auth/refresh').set('Origin', FOREIGN).set('Cookie', `refreshToken=${login.refreshToken}`);
    expect(res.status).to.equal(403);
    expect(res.body.error.code).to.equal('csrf_rejected');
    // Every /api/auth answer is no-store, refusals before the auth routes included (issue 34).
    expect(res.headers['cache-control']).to.equal('no-store');
    const wrongMethod = await request(app).get('/api/auth/refresh');
    expect(wrongMethod.status).to.equal(405);
    expect(wrongMethod.headers['cache-control']).to.equal('no-store');
    expect((await Session.findByPk(sessionId))!.currentJtiHash).to.equal(before);
  });

  it('lets the same requests through without Origin (curl), from our own origin, from CORS_ORIGIN, and with Bearer', async () => {
    const admin = await sessionFor(await createUser({ role: 'admin' }));
    const variants: Array<[string, (m: Member) => Record<string, string>]> = [
      ['no Origin (curl, server-to-server)', (m) => ({ Cookie: m.session.cookie })],
      ['own origin, https behind a proxy', (m) => ({ Cookie: m.session.cookie, Origin: `https://${HOST}` })],
      ['own origin, Sec-Fetch-Site same-origin', (m) => ({ Cookie: m.session.cookie, Origin: `http://${HOST}`, 'Sec-Fetch-Site': 'same-origin' })],
      ['CORS_ORIGIN, Sec-Fetch-Site cross-site', (m) => ({ Cookie: m.session.cookie, Origin: FRONTEND, 'Sec-Fetch-Site': 'cross-site' })],
      ['Bearer from a foreign origin', (m) => ({ Authorization: m.session.bearer, Origin: FOREIGN, 'Sec-Fetch-Site': 'cross-site' })],
    ];
    for (const [variant, headers] of variants) {
      const m = await member();
      const victim = await createUser();
      for (const [name, path] of bodylessPosts(m, victim.user.id).reverse()) {
        const sent = headers(m);
        const asAdmin = name === 'admin reset-password';
        const credential = asAdmin ? (sent.Authorization ? { Authorization: admin.bearer } : { Cookie: admin.cookie }) : {};
        const res = await request(app)
          .post(path)
          .set('Host', HOST)
          .set('Content-Type', 'text/plain')
          .set({ ...sent, ...credential });
        expect(res.status, `${variant}: ${name}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 202]);
      }
      const after = await stateOf(m, victim.user.id);
      expect(after.revoked, variant).to.not.equal(null);
      expect(after.skipped, variant).to.equal(true);
      expect(after.read, variant).to.equal(true);
      expect(after.victimChanged, variant).to.equal(false);
    }
  });

  it('never refuses safe methods or a login without auth cookies', async () => {
    const m = await member();
    const read = await request(app).get('/api/auth/me').set('Cookie', m.session.cookie).set('Origin', FOREIGN);
    expect(read.status).to.equal(200);
    const fixture = await createUser();
    const login = await request(app).post('/api/auth/login').set('Origin', FRONTEND).send({ username: fixture.username, password: fixture.password });
    expect(login.status).to.equal(200);
  });

  it('without CORS_ORIGIN only our own origin passes', async () => {
    const plain = await testApp();
    const m = await member();
    const foreign = await request(plain).post('/api/auth/skip-email').set('Host', HOST).set('Origin', FRONTEND).set('Cookie', m.session.cookie);
    expect(foreign.status).to.equal(403);
    const own = await request(plain).post('/api/auth/skip-email').set('Host', `${HOST}:8443`).set('Origin', `https://${HOST}:8443`).set('Cookie', m.session.cookie);
    expect(own.status, JSON.stringify(own.body)).to.equal(200);
    const otherPort = await request(plain).post('/api/auth/skip-email').set('Host', `${HOST}:8443`).set('Origin', `https://${HOST}`).set('Cookie', m.session.cookie);
    expect(otherPort.status).to.equal(403);
  });
});

describe('hardening: cookie tossing', () => {
  it('production names the cookies __Host-accessToken / __Host-refreshToken: Secure, Path=/, no Domain', async () => {
    const app = await testApp({ NODE_ENV: 'production', TRUST_PROXY: '1' });
    const fixture = await createUser();
    const { res } = await loginViaHttp(app, fixture.username, fixture.password!, { rememberMe: true, ip: randomIp() });
    expect(res.status).to.equal(200);
    // knownDevice (the login throttle's device cookie, path /api/auth/login) is no credential: it cannot be __Host-.
    const { knownDevice, ...set } = parseSetCookies(res);
    expect(knownDevice, 'the device cookie is set beside them').to.be.an('object');
    expect(Object.keys(set).sort()).to.deep.equal(['__Host-accessToken', '__Host-refreshToken']);
    for (const cookie of Object.values(set)) {
      expect(cookie.attributes.secure).to.equal(true);
      expect(cookie.attributes.path).to.equal('/');
      expect(cookie.attributes).to.not.have.property('domain');
    }
    // Only the prefixed names count: a cookie a subdomain could plant under the plain name is ignored.
    const token = set['__Host-accessToken'].value;
    expect((await request(app).get('/api/auth/me').set('Cookie', `__Host-accessToken=${token}`)).status).to.equal(200);
    expect((await request(app).get('/api/auth/me').set('Cookie', `accessToken=${token}`)).status).to.equal(401);
    const refresh = await request(app).post('/api/auth/refresh').set('Cookie', `refreshToken=${set['__Host-refreshToken'].value}`);
    expect(refresh.body.error.code).to.equal('refresh_token_missing');
  });

  it('refuses a request naming an auth cookie twice with 400 duplicate_cookie, whichever comes first', async () => {
    const m = await member();
    const checks: Array<[Express, string, string]> = [
      [await testApp(), 'accessToken', m.session.accessToken],
      [await testApp({ NODE_ENV: 'production' }), '__Host-accessToken', m.session.accessToken],
    ];
    for (const [app, name, token] of checks) {
      for (const header of [`${name}=planted; ${name}=${token}`, `${name}=${token}; other=1; ${name}=planted`, `${name}=${token};${name}=${token}`]) {
        const res = await request(app).get('/api/contacts').set('Cookie', header);
        expect(res.status, header).to.equal(400);
        expect(res.body.error).to.deep.equal({
          message: 'Požiadavka obsahuje prihlasovaciu cookie viackrát; vymažte cookies a prihláste sa znova',
          statusCode: 400,
          code: 'duplicate_cookie',
        });
      }
      // Control: the single cookie works.
      expect((await request(app).get('/api/contacts').set('Cookie', `${name}=${token}; other=1`)).status).to.equal(200);
    }
  });

  it('a duplicated refresh cookie rotates nothing', async () => {
    const app = await testApp();
    const m = await member();
    const before = (await Session.findByPk(m.session.sessionId))!.currentJtiHash;
    const res = await request(app).post('/api/auth/refresh').set('Cookie', `refreshToken=x; refreshToken=${m.session.refreshToken}`);
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('duplicate_cookie');
    expect((await Session.findByPk(m.session.sessionId))!.currentJtiHash).to.equal(before);
  });
});

describe('hardening: Cache-Control: no-store on every authenticated answer', () => {
  it('success and error answers of authenticated endpoints, and the token-carrying auth answers', async () => {
    const app = await testApp();
    const m = await member();
    const admin = await sessionFor(await createUser({ role: 'admin' }));
    const gets: Array<[TestSession, string]> = [
      [m.session, '/api/auth/me'],
      [m.session, '/api/auth/session'],
      [m.session, '/api/contacts'],
      [m.session, `/api/contacts/${m.contactId}`],
      [m.session, '/api/contacts/00000000-0000-4000-8000-000000000000'],
      [m.session, '/api/contacts?limit=101'],
      [m.session, '/api/emails'],
      [m.session, `/api/emails/${m.emailId}`],
      [m.session, '/api/email-accounts'],
      [m.session, '/api/timesheets/my'],
      [m.session, '/api/admin/users'],
      [admin, '/api/admin/users'],
      [admin, '/api/admin/audit-logs'],
    ];
    for (const [session, path] of gets) {
      for (const credential of [{ Authorization: session.bearer }, { Cookie: session.cookie }]) {
        const res = await request(app).get(path).set(credential);
        expect(res.headers['cache-control'], `${path} (${res.status})`).to.match(/\bno-store\b/);
      }
    }
    const fixture = await createUser();
    const login = await loginViaHttp(await testApp({ TRUST_PROXY: '1' }), fixture.username, fixture.password!, { rememberMe: true, ip: randomIp() });
    expect(login.res.headers['cache-control']).to.equal('no-store');
    const refresh = await request(app).post('/api/auth/refresh').set('Cookie', `refreshToken=${login.refreshToken}`);
    expect(refresh.status).to.equal(200);
    expect(refresh.headers['cache-control']).to.equal('no-store');
  });
});

describe('hardening: 405 with Allow for a known path, before authentication', () => {
  it('answers the wrong method with 405 whoever asks; the right one still needs authentication', async () => {
    const app = await testApp();
    const m = await member();
    for (const credential of [{}, { Authorization: m.session.bearer }]) {
      const res = await request(app).put('/api/contacts').set(credential).send({});
      expect(res.status).to.equal(405);
      expect(res.headers.allow).to.equal('GET, HEAD, POST');
      expect(res.body.error.code).to.equal('method_not_allowed');
    }
    expect((await request(app).get('/api/contacts')).status).to.equal(401);
  });
});

describe('hardening: the Slovak check of the fuzzers can fail', () => {
  const answer = (body: object) => ({ status: 400, headers: {}, text: JSON.stringify(body), json: body });
  it('fails on an English message, in the envelope or a detail', () => {
    expect(() => expectSlovakMessages(answer({ error: { message: 'Invalid input', statusCode: 400 } }))).to.throw(/English/);
    expect(() => expectSlovakMessages(answer({ error: { message: 'Neplatné údaje', details: [{ field: 'a', message: 'Too big: expected number to be <=100' }] } }))).to.throw(
      /English/,
    );
    expectSlovakMessages(answer({ error: { message: 'Neplatné údaje', details: [{ field: 'a', message: 'Hodnota môže byť najviac 100' }] } }));
  });

  it('does not count a word the request itself sent (an echoed unknown field)', () => {
    expectSlovakMessages(answer({ error: { message: 'Neplatné údaje', details: [{ field: 'invalid', message: 'Neznáme pole: invalid' }] } }), '{"invalid":1}');
  });
});
