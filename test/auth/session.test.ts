import { expect } from 'chai';
import request from 'supertest';
import { Session } from '../../src/models/index.js';
import { parseSetCookies } from '../support/login.js';
import { authApp, auditRows, expectErrorEnvelope, loggedIn, me, onboardedUser } from './helpers.js';

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
    const meRes = await me(app, accessToken!);
    expect(meRes.status).to.equal(200);
    expect(Object.keys(meRes.body.data)).to.deep.equal(['user']);
    expect(meRes.body.data.user).to.include({ id: user.user.id, username: user.username, role: 'admin' });
    for (const body of [session.body, meRes.body]) {
      expect(JSON.stringify(body)).to.not.match(/\$2[aby]\$|tempPassword|"password"/);
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
    expect(set.accessToken!.value).to.equal('');
    expect(set.refreshToken!.value).to.equal('');
    // The access token itself has not expired, yet it stops working immediately.
    expectErrorEnvelope(await me(app, accessToken!), 401);
    const sid = JSON.parse(Buffer.from(accessToken!.split('.')[1]!, 'base64url').toString()).sid as string;
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
    expect((await me(app, a.accessToken!)).status).to.equal(401);
    expect((await me(app, b.accessToken!)).status).to.equal(200);
  });

  it('without a valid access token answers 401 and still clears the cookies', async () => {
    const app = await authApp();
    const res = await request(app).post('/api/auth/logout').set('Cookie', ['accessToken=expired.or.bad', 'refreshToken=x']);
    expectErrorEnvelope(res, 401);
    const set = parseSetCookies(res);
    expect(set.accessToken!.value).to.equal('');
    expect(set.refreshToken!.value).to.equal('');
  });
});
