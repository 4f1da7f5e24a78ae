import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog, Session } from '../../src/models/index.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser, uniqueName, type UserFixture } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { until } from '../support/poll.js';
import { loginViaHttp, randomIp as ip } from '../support/login.js';

describe('disabling a user (POST /api/admin/users/:id/disable and /enable)', function () {
  this.timeout(30_000);
  let app: Express;
  let admin: UserFixture;
  let adminSession: TestSession;
  let leaver: UserFixture;
  let leaverSession: TestSession;

  before(async () => {
    app = await testApp({ TRUST_PROXY: '1' });
    admin = await createUser({ role: 'admin' });
    adminSession = await sessionFor(admin);
  });

  beforeEach(async () => {
    leaver = await createUser({ username: uniqueName('leaver') });
    leaverSession = await sessionFor(leaver);
  });

  const asAdmin = (r: request.Test) => r.set('Authorization', adminSession.bearer);
  const disable = (id: string, session = adminSession) => request(app).post(`/api/admin/users/${id}/disable`).set('Authorization', session.bearer);
  const enable = (id: string) => asAdmin(request(app).post(`/api/admin/users/${id}/enable`));
  const login = (username: string, password: string) => request(app).post('/api/auth/login').set('X-Forwarded-For', ip()).send({ username, password });

  it('ends every session at once: the access token and the refresh token stop working', async () => {
    expect((await request(app).get('/api/auth/me').set('Authorization', leaverSession.bearer)).status).to.equal(200);
    const res = await disable(leaver.user.id);
    expect(res.status).to.equal(200);
    expect(res.body.data).to.include({ changed: true, revokedSessions: 1 });
    expect(res.body.data.user.disabledAt).to.be.a('string');
    expect((await request(app).get('/api/auth/me').set('Authorization', leaverSession.bearer)).status).to.equal(401);
    const refresh = await request(app).post('/api/auth/refresh').set('Cookie', `refreshToken=${leaverSession.refreshToken}`);
    expect(refresh.status).to.equal(401);
    expect(await Session.count({ where: { userId: leaver.user.id, revokedAt: null } })).to.equal(0);
  });

  it('refuses the right password with 403 account_disabled, the wrong one with the usual 401', async () => {
    await disable(leaver.user.id);
    const right = await login(leaver.username, leaver.password!);
    expect(right.status).to.equal(403);
    expect(right.body.error).to.include({ code: 'account_disabled', message: 'Účet je zablokovaný. Obráťte sa na administrátora.' });
    expect(right.headers['set-cookie']).to.equal(undefined);
    const wrong = await login(leaver.username, 'Not-The-Password-1234');
    expect(wrong.status).to.equal(401);
    expect(wrong.body.error.code).to.equal('invalid_credentials');
    const unknown = await login(uniqueName('nobody'), 'Not-The-Password-1234');
    expect(unknown.body.error).to.deep.equal(wrong.body.error);
    expect(await Session.count({ where: { userId: leaver.user.id, revokedAt: null } })).to.equal(0);
  });

  it('a login whose password check raced a disable makes no session: the disable that committed first wins', async () => {
    const ctx = await testContext();
    // A disable in flight: the row is written, not committed, while the login checks the password.
    const disabling = await ctx.db.sequelize.transaction();
    try {
      await ctx.db.sequelize.query('UPDATE users SET disabled_at = now() WHERE id = $id', { bind: { id: leaver.user.id }, transaction: disabling });
      const pending = login(leaver.username, leaver.password!).then((res) => res);
      await until(
        async () => {
          const [row] = await ctx.db.sequelize.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND position($1 in query) > 0",
            { bind: [leaver.user.id], type: QueryTypes.SELECT },
          );
          return row.n > 0;
        },
        { what: 'the login to wait for the disable', timeoutMs: 15_000 },
      );
      await disabling.commit();
      const res = await pending;
      expect(res.status, JSON.stringify(res.body)).to.equal(403);
      expect(res.body.error.code).to.equal('account_disabled');
      expect(await Session.count({ where: { userId: leaver.user.id, revokedAt: null } })).to.equal(1); // the one from before
    } finally {
      if (!(disabling as unknown as { finished?: string }).finished) await disabling.rollback();
    }
  });

  it('shows disabledAt in the admin list and hides the user from the directory', async () => {
    await disable(leaver.user.id);
    const list = await asAdmin(request(app).get('/api/admin/users').query({ search: leaver.username }));
    expect(list.body.data.items[0].disabledAt).to.be.a('string');
    const directory = await request(app).get('/api/users/directory').query({ search: leaver.username }).set('Authorization', adminSession.bearer);
    expect(directory.body.data.users).to.deep.equal([]);
  });

  it('enables again: login works, the directory lists them, and a second call changes nothing', async () => {
    await disable(leaver.user.id);
    const again = await disable(leaver.user.id);
    expect(again.status).to.equal(200);
    expect(again.body.data).to.include({ changed: false, revokedSessions: 0 });
    const res = await enable(leaver.user.id);
    expect(res.status).to.equal(200);
    expect(res.body.data.changed).to.equal(true);
    expect(res.body.data.user.disabledAt).to.equal(null);
    expect((await login(leaver.username, leaver.password!)).status).to.equal(200);
    const directory = await request(app).get('/api/users/directory').query({ search: leaver.username }).set('Authorization', adminSession.bearer);
    expect(directory.body.data.users.map((u: { id: string }) => u.id)).to.deep.equal([leaver.user.id]);
    expect((await enable(leaver.user.id)).body.data.changed).to.equal(false);
  });

  it('audits disable and enable with the admin as actor', async () => {
    await disable(leaver.user.id);
    await enable(leaver.user.id);
    const records = await AuditLog.findAll({ where: { userId: leaver.user.id, action: [AuditActions.userDisabled, AuditActions.userEnabled] }, order: [['id', 'ASC']] });
    expect(records.map((r) => r.action)).to.deep.equal([AuditActions.userDisabled, AuditActions.userEnabled]);
    expect(records[0].actor).to.equal(`user:${admin.user.id}`);
    expect(records[0].details).to.include({ revokedSessions: 1, role: 'member' });
  });

  it('refuses an admin disabling themselves (409 conflict) and changes nothing', async () => {
    const res = await disable(admin.user.id);
    expect(res.status).to.equal(409);
    expect(res.body.error.code).to.equal('conflict');
    expect((await request(app).get('/api/auth/me').set('Authorization', adminSession.bearer)).status).to.equal(200);
  });

  it('lets an admin disable another admin, whose admin requests then fail', async () => {
    const other = await createUser({ role: 'admin' });
    const otherSession = await sessionFor(other);
    expect((await disable(other.user.id)).status).to.equal(200);
    expect((await disable(leaver.user.id, otherSession)).status).to.equal(401);
    await enable(other.user.id);
  });

  it('is for admins only: 401 anonymous, 403 members, 404 unknown ids, 400 bad ids', async () => {
    expect((await request(app).post(`/api/admin/users/${leaver.user.id}/disable`)).status).to.equal(401);
    const member = await createUser();
    expect((await disable(leaver.user.id, await sessionFor(member))).status).to.equal(403);
    expect((await disable('4b1d5e8e-2f3a-4c1b-9d7e-000000000000')).status).to.equal(404);
    expect((await disable('nope')).status).to.equal(400);
    await leaver.user.reload();
    expect(leaver.user.disabledAt).to.equal(null);
  });

  it('keeps logins over HTTP working for others (a real login, then disable ends it)', async () => {
    const { cookies } = await loginViaHttp(app, leaver.username, leaver.password!, { ip: ip(), rememberMe: true });
    expect((await request(app).get('/api/auth/me').set('Cookie', cookies)).status).to.equal(200);
    await disable(leaver.user.id);
    expect((await request(app).get('/api/auth/me').set('Cookie', cookies)).status).to.equal(401);
  });
});
