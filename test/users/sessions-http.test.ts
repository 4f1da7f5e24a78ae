import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog, Session } from '../../src/models/index.js';
import { sessionFor } from '../support/auth.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp } from '../support/harness.js';
import { loginViaHttp, randomIp, type HttpLogin } from '../support/login.js';

interface SessionView {
  id: string;
  current: boolean;
  createdAt: string;
  lastUsedAt: string;
  ip: string | null;
  userAgent: string | null;
  rememberMe: boolean;
}

describe("one's own sessions (/api/auth/sessions)", function () {
  this.timeout(30_000);
  let app: Express;
  let user: UserFixture;
  let laptop: HttpLogin;
  let phone: HttpLogin;
  let laptopIp: string;

  before(async () => {
    app = await testApp({ TRUST_PROXY: '1' });
  });

  beforeEach(async () => {
    user = await createUser();
    laptopIp = randomIp();
    laptop = await loginViaHttp(app, user.username, user.password!, { ip: laptopIp, userAgent: 'Laptop Firefox', rememberMe: true });
    phone = await loginViaHttp(app, user.username, user.password!, { ip: randomIp(), userAgent: 'Phone Safari', rememberMe: false });
  });

  const sessions = async (login: HttpLogin): Promise<SessionView[]> => {
    const res = await request(app).get('/api/auth/sessions').set('Cookie', login.cookies);
    expect(res.status).to.equal(200);
    // One list shape (issue 45): data.items, the deprecated data.sessions the same for a release.
    expect(res.body.data.items).to.deep.equal(res.body.data.sessions);
    expect(res.body.data.pagination.total).to.equal(res.body.data.items.length);
    return res.body.data.items as SessionView[];
  };
  const me = (login: HttpLogin) => request(app).get('/api/auth/me').set('Cookie', login.cookies);

  it('lists the open sessions with where and when, marking the current one, never a token', async () => {
    const list = await sessions(laptop);
    expect(list).to.have.length(2);
    const current = list.find((s) => s.current)!;
    expect(current).to.include({ ip: laptopIp, userAgent: 'Laptop Firefox', rememberMe: true });
    expect(list.find((s) => !s.current)).to.include({ userAgent: 'Phone Safari', rememberMe: false });
    expect(Object.keys(current).sort()).to.deep.equal(['createdAt', 'current', 'expiresAt', 'id', 'ip', 'lastUsedAt', 'rememberMe', 'userAgent']);
    const raw = JSON.stringify(list);
    expect(raw).not.to.contain(laptop.accessToken!);
    expect(raw).not.to.match(/hash|jti|token/i);
  });

  it("ends another of one's sessions: it stops working, the current one goes on", async () => {
    const phoneId = (await sessions(phone)).find((s) => s.current)!.id;
    const res = await request(app).delete(`/api/auth/sessions/${phoneId}`).set('Cookie', laptop.cookies);
    expect(res.status).to.equal(200);
    expect(res.headers['set-cookie']).to.equal(undefined);
    expect((await me(phone)).status).to.equal(401);
    expect((await me(laptop)).status).to.equal(200);
    expect((await sessions(laptop)).map((s) => s.id)).not.to.include(phoneId);
    const record = await AuditLog.findOne({ where: { action: AuditActions.sessionRevoked, userId: user.user.id } });
    expect(record?.details).to.deep.include({ sessionId: phoneId, current: false });
  });

  it("answers 404 for someone else's session (and leaves it standing), and for an ended one", async () => {
    const other = await createUser();
    const otherSession = await sessionFor(other);
    const res = await request(app).delete(`/api/auth/sessions/${otherSession.sessionId}`).set('Cookie', laptop.cookies);
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('not_found');
    expect((await request(app).get('/api/auth/me').set('Authorization', otherSession.bearer)).status).to.equal(200);
    const phoneId = (await sessions(phone)).find((s) => s.current)!.id;
    await request(app).delete(`/api/auth/sessions/${phoneId}`).set('Cookie', laptop.cookies);
    expect((await request(app).delete(`/api/auth/sessions/${phoneId}`).set('Cookie', laptop.cookies)).status).to.equal(404);
    expect((await request(app).delete('/api/auth/sessions/not-an-id').set('Cookie', laptop.cookies)).status).to.equal(400);
  });

  it('ending the current session is a logout: its cookies are cleared', async () => {
    const laptopId = (await sessions(laptop)).find((s) => s.current)!.id;
    const res = await request(app).delete(`/api/auth/sessions/${laptopId}`).set('Cookie', laptop.cookies);
    expect(res.status).to.equal(200);
    expect(String(res.headers['set-cookie'])).to.match(/accessToken=;/);
    expect((await me(laptop)).status).to.equal(401);
  });

  it('revoke-others ends every other session and keeps the current one', async () => {
    const third = await sessionFor(user);
    const res = await request(app).post('/api/auth/sessions/revoke-others').set('Cookie', laptop.cookies);
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal({ revokedSessions: 2 });
    expect((await me(phone)).status).to.equal(401);
    expect((await request(app).get('/api/auth/me').set('Authorization', third.bearer)).status).to.equal(401);
    expect((await sessions(laptop)).map((s) => s.current)).to.deep.equal([true]);
    expect(await AuditLog.count({ where: { action: AuditActions.otherSessionsRevoked, userId: user.user.id } })).to.equal(1);
  });

  it('records lastUsedAt on use, at most once a minute (no write per request)', async () => {
    const fresh = await sessionFor(user);
    const old = new Date(Date.now() - 3600_000);
    await Session.update({ lastUsedAt: old }, { where: { id: fresh.sessionId } });
    expect((await request(app).get('/api/auth/me').set('Authorization', fresh.bearer)).status).to.equal(200);
    const touched = (await Session.findByPk(fresh.sessionId))!.lastUsedAt;
    expect(touched.getTime()).to.be.greaterThan(old.getTime());
    // Used again within the minute (also when the cache is bypassed): not written again.
    const recent = new Date(Date.now() - 30_000);
    await Session.update({ lastUsedAt: recent }, { where: { id: fresh.sessionId } });
    for (let i = 0; i < 3; i++) await request(app).get('/api/auth/me').set('Authorization', fresh.bearer);
    expect((await Session.findByPk(fresh.sessionId))!.lastUsedAt.getTime()).to.equal(recent.getTime());
  });

  it('answers 401 without a session', async () => {
    expect((await request(app).get('/api/auth/sessions')).status).to.equal(401);
    expect((await request(app).post('/api/auth/sessions/revoke-others')).status).to.equal(401);
  });
});
