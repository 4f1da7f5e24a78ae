import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { EmailAccount, User } from '../../src/models/index.js';
import { createUser } from '../support/factories.js';
import { loginViaHttp, randomIp } from '../support/login.js';
import { authApp, auditRows, expectErrorEnvelope, loggedIn, me, onboardedUser, strongPassword } from './helpers.js';

const ALICE = { email: 'alice@example.test', emailPassword: 'alicepw' };

function post(app: Express, path: string, accessToken: string, body?: object, userAgent = 'crm-tests') {
  const req = request(app).post(`/api/auth/${path}`).set('Authorization', `Bearer ${accessToken}`).set('User-Agent', userAgent);
  return body === undefined ? req : req.send(body);
}

/** Steps 1 and 2 of docs/contract.md §3: login with the temporary password, then set-password. */
async function throughPasswordStep(app: Express) {
  const fixture = await createUser({ temporary: true });
  const first = await loggedIn(app, fixture.username, fixture.temporaryPassword);
  expect(first.res.body.data).to.include({ needsPasswordChange: true, needsEmailSetup: true });
  const password = strongPassword();
  const set = await post(app, 'set-password', first.accessToken, { newPassword: password });
  expect(set.status, JSON.stringify(set.body)).to.equal(200);
  expect(set.body.data).to.include({ needsPasswordChange: false, needsEmailSetup: true });

  expectErrorEnvelope((await loginViaHttp(app, fixture.username, fixture.temporaryPassword, { ip: randomIp() })).res, 401);
  const second = await loggedIn(app, fixture.username, password);
  expect(second.res.body.data).to.include({ needsPasswordChange: false, needsEmailSetup: true });
  return { fixture, password, accessToken: second.accessToken };
}

describe('onboarding sequence (docs/contract.md §3)', () => {
  it('temporary password → set-password → own password → skip-email → nothing pending', async () => {
    const app = await authApp();
    const { fixture, password, accessToken } = await throughPasswordStep(app);
    const skip = await post(app, 'skip-email', accessToken, undefined, 'Skip/1');
    expect(skip.status).to.equal(200);
    expect(skip.body.message).to.equal('Email setup preskočený');
    expect(skip.body.data).to.include({ needsPasswordChange: false, needsEmailSetup: false });
    expect(skip.body.data.user.id).to.equal(fixture.user.id);
    expect((await User.findByPk(fixture.user.id))!.emailSetupSkipped).to.equal(true);
    const audit = await auditRows({ action: 'auth.email_skip', userId: fixture.user.id });
    expect(audit).to.have.length(1);
    expect(audit[0]).to.include({ userAgent: 'Skip/1' });
    const later = await loggedIn(app, fixture.username, password);
    expect(later.res.body.data).to.include({ needsPasswordChange: false, needsEmailSetup: false });
  });

  it('temporary password → set-password → own password → link-email (real JMAP server) → nothing pending', async () => {
    const app = await authApp();
    const { fixture, password, accessToken } = await throughPasswordStep(app);
    const link = await post(app, 'link-email', accessToken, ALICE, 'Link/1');
    expect(link.status, JSON.stringify(link.body)).to.equal(200);
    expect(link.body.message).to.equal('Email účet úspešne pripojený a overený');
    expect(link.body.data.email).to.equal(ALICE.email);
    expect(link.body.data.accountId).to.be.a('string').and.not.empty;
    expect(Object.keys(link.body.data).sort()).to.deep.equal(['accountId', 'email', 'emailAccount', 'needsEmailSetup', 'needsPasswordChange']);
    expect(link.body.data).to.include({ needsEmailSetup: false, needsPasswordChange: false });
    const account = await EmailAccount.findOne({ where: { userId: fixture.user.id } });
    expect(account!.jmapAccountId).to.equal(link.body.data.accountId);
    // The CRM's account beside the contract's JMAP id: the frontend needs its id for contacts and emails.
    expect(link.body.data.emailAccount).to.include({ id: account!.id, email: ALICE.email, jmapAccountId: account!.jmapAccountId, isPrimary: true });
    expect(account!.emailPassword).to.not.contain(ALICE.emailPassword);
    const audit = await auditRows({ action: 'auth.email_link', userId: fixture.user.id });
    expect(audit).to.have.length(1);
    expect(audit[0]).to.include({ userAgent: 'Link/1', success: true });
    expect(audit[0].details).to.include({ email: ALICE.email });
    const later = await loggedIn(app, fixture.username, password);
    expect(later.res.body.data).to.include({ needsPasswordChange: false, needsEmailSetup: false });
  });
});

describe('POST /api/auth/link-email', () => {
  it('lets different users link the same mailbox, each as an account of their own', async () => {
    const app = await authApp();
    const one = await onboardedUser();
    const two = await onboardedUser();
    for (const user of [one, two]) {
      const { accessToken } = await loggedIn(app, user.username, user.password);
      expect((await post(app, 'link-email', accessToken, ALICE)).status).to.equal(200);
    }
    expect(await EmailAccount.count({ where: { userId: [one.user.id, two.user.id] } })).to.equal(2);
  });

  it('answers 409 when the caller already linked that address', async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const { accessToken } = await loggedIn(app, user.username, user.password);
    expect((await post(app, 'link-email', accessToken, ALICE)).status).to.equal(200);
    expectErrorEnvelope(await post(app, 'link-email', accessToken, { ...ALICE, email: 'ALICE@example.test' }), 409);
  });

  it('answers 400 with a Slovak message for a wrong mail password, and stores nothing', async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const { accessToken } = await loggedIn(app, user.username, user.password);
    const res = await post(app, 'link-email', accessToken, { email: ALICE.email, emailPassword: 'wrong-password' });
    expectErrorEnvelope(res, 400, 'Nesprávny email alebo heslo k emailovému účtu');
    // Its own code: the frontend asks for the password again instead of reporting a bug (bad_request).
    expect(res.body.error.code).to.equal('mail_credentials_rejected');
    expect(await EmailAccount.count({ where: { userId: user.user.id } })).to.equal(0);
  });

  it('answers a clear error when no JMAP server is configured', async () => {
    const app = await authApp({ JMAP_SESSION_URL: '' });
    const user = await onboardedUser();
    const { accessToken } = await loggedIn(app, user.username, user.password);
    const res = await post(app, 'link-email', accessToken, ALICE);
    expectErrorEnvelope(res, 503);
    expect(res.body.error.message).to.contain('JMAP_SESSION_URL');
  });

  it('validates the body and needs authentication', async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const { accessToken } = await loggedIn(app, user.username, user.password);
    for (const body of [
      {},
      { email: 'not-an-email', emailPassword: 'x' },
      { email: ALICE.email },
      { email: ALICE.email, emailPassword: 7 },
      { email: `${'a'.repeat(250)}@example.test`, emailPassword: 'x' },
    ]) {
      expectErrorEnvelope(await post(app, 'link-email', accessToken, body), 400);
    }
    expectErrorEnvelope(await request(app).post('/api/auth/link-email').send(ALICE), 401);
    expectErrorEnvelope(await request(app).post('/api/auth/skip-email'), 401);
  });
});

/** Contract (docs/contract.md §3): the onboarding gate (security: a temporary password is a shared secret until replaced). */
describe('onboarding gate: a temporary-password session reaches only the onboarding endpoints', () => {
  const GATED: Array<[string, string, object?]> = [
    ['GET', '/api/contacts'],
    ['GET', '/api/emails'],
    ['GET', '/api/timesheets/my'],
    ['GET', '/api/email-accounts'],
    ['POST', '/api/email-accounts', ALICE],
    ['POST', '/api/auth/link-email', ALICE],
    ['POST', '/api/auth/skip-email'],
    ['GET', '/api/admin/users'],
    ['GET', '/api/admin/audit-logs'],
  ];

  it('answers 403 password_change_required (Slovak) everywhere else, by Bearer and by cookie, and changes nothing', async () => {
    const app = await authApp();
    const fixture = await createUser({ role: 'admin', temporary: true });
    const login = await loggedIn(app, fixture.username, fixture.temporaryPassword);
    for (const [method, path, body] of GATED) {
      for (const credential of [{ Authorization: `Bearer ${login.accessToken}` }, { Cookie: login.cookies.join('; ') }]) {
        let req = request(app)[method.toLowerCase() as 'get' | 'post'](path).set(credential);
        if (body) req = req.send(body);
        const res = await req;
        expectErrorEnvelope(res, 403, 'Najprv si nastavte vlastné heslo (POST /api/auth/set-password)');
        expect(res.body.error.code, `${method} ${path}`).to.equal('password_change_required');
        expect(res.headers['cache-control']).to.equal('no-store');
      }
    }
    expect(await EmailAccount.count({ where: { userId: fixture.user.id } })).to.equal(0);
    expect((await User.findByPk(fixture.user.id))!.emailSetupSkipped).to.equal(false);
  });

  it('lets me, session, refresh, set-password and logout answer; after set-password everything opens', async () => {
    const app = await authApp();
    const fixture = await createUser({ temporary: true });
    const login = await loggedIn(app, fixture.username, fixture.temporaryPassword);
    const bearer = { Authorization: `Bearer ${login.accessToken}` };
    expect((await request(app).get('/api/auth/me').set(bearer)).status).to.equal(200);
    expect((await request(app).get('/api/auth/session').set(bearer)).status).to.equal(200);
    const refreshed = await request(app).post('/api/auth/refresh').set('Cookie', `refreshToken=${login.refreshToken}`);
    expect(refreshed.status, JSON.stringify(refreshed.body)).to.equal(200);
    expect((await request(app).get('/api/contacts').set(bearer)).status).to.equal(403);

    const set = await post(app, 'set-password', login.accessToken, { newPassword: strongPassword() });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    // The same session, no new login: the gate reads the user as stored now.
    const contacts = await request(app).get('/api/contacts').set(bearer);
    expect(contacts.status, JSON.stringify(contacts.body)).to.equal(200);
    expect((await post(app, 'skip-email', login.accessToken)).status).to.equal(200);
    expect((await request(app).post('/api/auth/logout').set(bearer)).status).to.equal(200);
  });

  it('logout works with a temporary password too', async () => {
    const app = await authApp();
    const fixture = await createUser({ temporary: true });
    const login = await loggedIn(app, fixture.username, fixture.temporaryPassword);
    const res = await request(app).post('/api/auth/logout').set('Authorization', `Bearer ${login.accessToken}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect((await me(app, login.accessToken)).status).to.equal(401);
  });
});
