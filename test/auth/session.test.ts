import crypto from 'node:crypto';
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { Session } from '../../src/models/index.js';
import { parseSetCookies } from '../support/login.js';
import { createUser } from '../support/factories.js';
import { baseTestEnv } from '../support/harness.js';
import { authApp, auditRows, expectErrorEnvelope, loggedIn, me, onboardedUser } from './helpers.js';

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
const sessionIdOf = (token: string) => claimsOf(token).sid as string;

/** The same access token, signed with the test secret, but expired a minute ago. */
function expiredCopy(token: string): string {
  const { iat: _iat, exp: _exp, ...claims } = claimsOf(token);
  const key = crypto.createSecretKey(Buffer.from(baseTestEnv().JWT_ACCESS_SECRET));
  return jwt.sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 60 }, key, { algorithm: 'HS256' });
}

describe('GET /api/auth/session and /api/auth/me', () => {
  it('session answers the user and authenticated: true; me answers the user', async () => {
    const app = await authApp();
    const user = await onboardedUser({ role: 'admin' });
    const { accessToken } = await loggedIn(app, user.username, user.password);
    const session = await request(app).get('/api/auth/session').set('Authorization', `Bearer ${accessToken}`);
    expect(session.status).to.equal(200);
    expect(session.body.success).to.equal(true);
    expect(session.body.message).to.be.a('string');
    expect(session.body.data.authenticated).to.equal(true);
    expect(session.body.data.user).to.include({ id: user.user.id, username: user.username, role: 'admin' });
    const meRes = await me(app, accessToken);
    expect(meRes.status).to.equal(200);
    // contract (docs/contract.md §3): the onboarding flags beside the user, so a reloaded frontend knows where the user is.
    expect(meRes.body.data).to.have.all.keys('user', 'needsPasswordChange', 'needsEmailSetup');
    expect(meRes.body.data).to.include({ needsPasswordChange: false, needsEmailSetup: false });
    expect(session.body.data).to.include({ authenticated: true, needsPasswordChange: false, needsEmailSetup: false });
    expect(meRes.body.data.user).to.include({ id: user.user.id, username: user.username, role: 'admin' });
    for (const body of [session.body, meRes.body]) {
      expect(JSON.stringify(body)).to.not.match(/\$2[aby]\$|tempPassword|"password"/);
    }
  });

  it('carry the same onboarding flags as login for a user with a temporary password', async () => {
    const app = await authApp();
    const fixture = await createUser({ temporary: true });
    const login = await loggedIn(app, fixture.username, fixture.temporaryPassword);
    expect(login.res.body.data).to.include({ needsPasswordChange: true, needsEmailSetup: true });
    for (const path of ['/api/auth/me', '/api/auth/session']) {
      const res = await request(app).get(path).set('Authorization', `Bearer ${login.accessToken}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data).to.include({ needsPasswordChange: true, needsEmailSetup: true });
      expect(res.body.data.user.id).to.equal(fixture.user.id);
    }
  });

  it('both need authentication', async () => {
    const app = await authApp();
    expectErrorEnvelope(await request(app).get('/api/auth/session'), 401, 'Neautorizovaný prístup');
    expectErrorEnvelope(await request(app).get('/api/auth/me'), 401, 'Neautorizovaný prístup');
  });
});

describe('POST /api/auth/logout', () => {
  it('revokes the session at once, clears both cookies, audits, and answers a message without data', async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const { accessToken, cookies, ip } = await loggedIn(app, user.username, user.password);
    const res = await request(app).post('/api/auth/logout').set('Cookie', cookies).set('X-Forwarded-For', ip).set('User-Agent', 'Logout/1');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ success: true, message: 'Odhlásenie úspešné' });
    const set = parseSetCookies(res);
    expect(set.accessToken.value).to.equal('');
    expect(set.refreshToken.value).to.equal('');
    // The access token itself has not expired, yet it stops working immediately.
    expectErrorEnvelope(await me(app, accessToken), 401);
    const sid = JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString()).sid as string;
    expect((await Session.findByPk(sid))!.revokedReason).to.equal('logout');
    const audit = await auditRows({ action: 'auth.logout', userId: user.user.id });
    expect(audit).to.have.length(1);
    expect(audit[0]).to.include({ ip, userAgent: 'Logout/1', success: true });
  });

  it('ends only the session it was called with', async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const a = await loggedIn(app, user.username, user.password);
    const b = await loggedIn(app, user.username, user.password);
    expect((await request(app).post('/api/auth/logout').set('Authorization', `Bearer ${a.accessToken}`)).status).to.equal(200);
    expect((await me(app, a.accessToken)).status).to.equal(401);
    expect((await me(app, b.accessToken)).status).to.equal(200);
  });

  it('without a valid access token answers 401 and still clears the cookies', async () => {
    const app = await authApp();
    const res = await request(app).post('/api/auth/logout').set('Cookie', ['accessToken=expired.or.bad', 'refreshToken=x']);
    expectErrorEnvelope(res, 401);
    const set = parseSetCookies(res);
    expect(set.accessToken.value).to.equal('');
    expect(set.refreshToken.value).to.equal('');
  });

  // contract (docs/contract.md §4.1 rule 7): a tab reopened after the access token's hour still logs out for real.
  for (const [name, accessCookie] of [
    ['an expired access token', (token: string) => [`accessToken=${expiredCopy(token)}`]],
    ['no access token at all', () => []],
  ] as Array<[string, (token: string) => string[]]>) {
    it(`with ${name} but a valid refresh cookie revokes THAT session, audits the logout, clears both cookies`, async () => {
      const app = await authApp();
      const user = await onboardedUser();
      const target = await loggedIn(app, user.username, user.password);
      const other = await loggedIn(app, user.username, user.password);
      const res = await request(app)
        .post('/api/auth/logout')
        .set('Cookie', [...accessCookie(target.accessToken), `refreshToken=${target.refreshToken}`])
        .set('X-Forwarded-For', target.ip)
        .set('User-Agent', 'Logout/expired');
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const set = parseSetCookies(res);
      expect(set.accessToken.value).to.equal('');
      expect(set.refreshToken.value).to.equal('');
      const sid = sessionIdOf(target.accessToken);
      expect((await Session.findByPk(sid))!.revokedReason).to.equal('logout');
      expect((await Session.findByPk(sessionIdOf(other.accessToken)))!.revokedAt).to.equal(null);
      const audit = await auditRows({ action: 'auth.logout', userId: user.user.id });
      expect(audit).to.have.length(1);
      expect(audit[0]).to.include({ ip: target.ip, userAgent: 'Logout/expired', success: true });
      expect(audit[0].details).to.deep.equal({ sessionId: sid });
      // The refresh token of that session is dead too.
      expectErrorEnvelope(await request(app).post('/api/auth/refresh').set('Cookie', `refreshToken=${target.refreshToken}`), 401);
    });
  }

  it("with a revoked session's refresh cookie and no access token answers 401", async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const login = await loggedIn(app, user.username, user.password);
    expect((await request(app).post('/api/auth/logout').set('Authorization', `Bearer ${login.accessToken}`)).status).to.equal(200);
    const again = await request(app).post('/api/auth/logout').set('Cookie', `refreshToken=${login.refreshToken}`);
    expectErrorEnvelope(again, 401);
    expect(await auditRows({ action: 'auth.logout', userId: user.user.id })).to.have.length(1);
  });
});
