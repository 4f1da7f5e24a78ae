import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog, EmailAccount, Session, User } from '../../src/models/index.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser, uniqueName, type UserFixture } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';

async function auditOf(action: string, userId: string) {
  return AuditLog.findAll({ where: { action, userId }, order: [['id', 'ASC']] });
}

describe('admin users API (/api/admin/users)', function () {
  this.timeout(30_000);
  let app: Express;
  let admin: UserFixture;
  let adminSession: TestSession;
  let member: UserFixture;
  let memberSession: TestSession;

  before(async () => {
    app = await testApp();
    admin = await createUser({ role: 'admin' });
    adminSession = await sessionFor(admin);
    member = await createUser({ role: 'member' });
    memberSession = await sessionFor(member);
  });

  const asAdmin = (r: request.Test) => r.set('Authorization', adminSession.bearer);
  const call = (method: string, path: string) => request(app)[method as 'get'](path);

  describe('access', () => {
    const endpoints = (id: string): Array<[string, string]> => [
      ['post', '/api/admin/users'],
      ['get', '/api/admin/users'],
      ['get', `/api/admin/users/${id}`],
      ['patch', `/api/admin/users/${id}`],
      ['post', `/api/admin/users/${id}/reset-password`],
      ['delete', `/api/admin/users/${id}`],
      ['get', '/api/admin/audit-logs'],
    ];

    it('answers 401 to anonymous callers on every admin endpoint', async () => {
      for (const [method, path] of endpoints(member.user.id)) {
        const res = await call(method, path).send({ role: 'admin' });
        expect(res.status, `${method} ${path}`).to.equal(401);
        expect(res.body.success).to.equal(false);
      }
    });

    it('answers 403 to members and changes nothing', async () => {
      for (const [method, path] of endpoints(member.user.id)) {
        const res = await call(method, path)
          .set('Authorization', memberSession.bearer)
          .send({ username: uniqueName('x'), role: 'admin' });
        expect(res.status, `${method} ${path}`).to.equal(403);
        expect(res.body.error.message).to.equal('Prístup zamietnutý');
      }
      await member.user.reload();
      expect(member.user.role).to.equal('member');
    });

    it('uses the role stored now: an admin demoted after login is refused', async () => {
      const former = await createUser({ role: 'admin' });
      const s = await sessionFor(former);
      expect((await request(app).get('/api/admin/users').set('Authorization', s.bearer)).status).to.equal(200);
      await User.update({ role: 'member' }, { where: { id: former.user.id } });
      expect((await request(app).get('/api/admin/users').set('Authorization', s.bearer)).status).to.equal(403);
    });
  });

  describe('POST /api/admin/users', () => {
    it('creates a user with a temporary password shown once, audited with the web actor', async () => {
      const username = uniqueName('new');
      const res = await asAdmin(request(app).post('/api/admin/users')).send({ username, role: 'member', firstName: 'Eva', lastName: 'Malá' });
      expect(res.status).to.equal(201);
      expect(res.headers['cache-control']).to.equal('no-store');
      expect(res.body.message).to.equal('Používateľ vytvorený');
      expect(res.body.data.user).to.include({ username, role: 'member', firstName: 'Eva', lastName: 'Malá', changedPassword: false });
      expect(res.body.data.temporaryPassword).to.match(/^[A-Za-z0-9]{12,}$/);
      expect(res.body.data).not.to.have.property('emailAccount');
      expect(JSON.stringify(res.body)).not.to.match(/\$2[aby]\$/);
      const [record] = await auditOf(AuditActions.userCreated, res.body.data.user.id);
      expect(record?.actor).to.equal(`user:${admin.user.id}`);
    });

    it('refuses bad input with 400 and field details', async () => {
      const cases: unknown[] = [
        {},
        { username: 'ab' },
        { username: uniqueName(), role: 'owner' },
        { username: uniqueName(), email: 'alice@example.test' },
        { username: uniqueName(), emailPassword: 'x' },
        { username: uniqueName(), email: 'not-an-address', emailPassword: 'x' },
        { username: 12345 },
      ];
      for (const body of cases) {
        const res = await asAdmin(request(app).post('/api/admin/users')).send(body as object);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.error.details).to.be.an('array').that.is.not.empty;
      }
      const malformed = await asAdmin(request(app).post('/api/admin/users')).set('Content-Type', 'application/json').send('{"username":');
      expect(malformed.status).to.equal(400);
    });

    it('answers 409 for a username that exists in any letter case', async () => {
      const res = await asAdmin(request(app).post('/api/admin/users')).send({ username: member.username.toUpperCase() });
      expect(res.status).to.equal(409);
    });

    it('creates NO user when the mail credentials are wrong', async () => {
      const username = uniqueName('badmail');
      const res = await asAdmin(request(app).post('/api/admin/users')).send({ username, role: 'member', email: 'alice@example.test', emailPassword: 'wrong-password' });
      expect(res.status).to.equal(400);
      expect(res.body.error.message).to.equal('Nesprávny email alebo heslo k emailovému účtu');
      const ctx = await testContext();
      expect(await ctx.services.users.findByUsername(username)).to.equal(null);
      expect(await AuditLog.count({ where: { action: AuditActions.userCreated, username } })).to.equal(0);
    });

    it('keeps the audit record of refused mail credentials, as the acting admin\'s, and counts the guess against the admin (issue 34)', async () => {
      const username = uniqueName('lostaudit');
      const before = await AuditLog.count({ where: { action: AuditActions.emailCredentialsRejected, userId: admin.user.id } });
      const res = await asAdmin(request(app).post('/api/admin/users')).send({ username, role: 'member', email: 'alice@example.test', emailPassword: 'wrong-password' });
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('mail_credentials_rejected');
      const records = await AuditLog.findAll({ where: { action: AuditActions.emailCredentialsRejected, userId: admin.user.id }, order: [['id', 'ASC']] });
      expect(records).to.have.length(before + 1);
      const record = records[records.length - 1];
      expect(record.actor).to.equal(`user:${admin.user.id}`);
      expect(record.success).to.equal(false);
      expect(record.details).to.include({ email: 'alice@example.test', forUsername: username });
      // The throttle counts the admin's guess (rate_limits keyed by the admin, not by a rolled-back id).
      const ctx = await testContext();
      const [row] = await ctx.db.sequelize.query<{ points: number }>('SELECT points FROM rate_limits WHERE key = :key', {
        replacements: { key: `mail_cred_user:${admin.user.id}` },
        type: QueryTypes.SELECT,
      });
      expect(row?.points, 'a guess counted against the admin').to.be.greaterThan(0);
    });

    it('refuses a taken username before the mail server is asked (no guess counted, nothing recorded)', async () => {
      const before = await AuditLog.count({ where: { action: AuditActions.emailCredentialsRejected } });
      const res = await asAdmin(request(app).post('/api/admin/users')).send({ username: member.username, email: 'alice@example.test', emailPassword: 'wrong-password' });
      expect(res.status).to.equal(409);
      expect(await AuditLog.count({ where: { action: AuditActions.emailCredentialsRejected } })).to.equal(before);
    });

    it('creates the user and its primary email account from valid credentials, in one go', async () => {
      const username = uniqueName('mail');
      const res = await asAdmin(request(app).post('/api/admin/users')).send({ username, role: 'member', email: 'Alice@Example.test', emailPassword: 'alicepw' });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      const { user, emailAccount, temporaryPassword } = res.body.data;
      expect(temporaryPassword).to.be.a('string');
      expect(emailAccount).to.include({ email: 'alice@example.test', isPrimary: true, isActive: true });
      expect(emailAccount.jmapAccountId).to.be.a('string').and.not.empty;
      expect(JSON.stringify(res.body)).not.to.contain('alicepw');
      const stored = await EmailAccount.findAll({ where: { userId: user.id } });
      expect(stored).to.have.length(1);
      expect(stored[0].emailPassword).not.to.contain('alicepw');
      const [attached] = await auditOf(AuditActions.emailAccountAttached, user.id);
      expect(attached?.actor).to.equal(`user:${admin.user.id}`);
      expect(attached?.details).to.include({ email: 'alice@example.test' });
      // Synced at once, as an account linked by its owner is (EmailAccountService asks once the user's transaction commits).
      const ctx = await testContext();
      await ctx.services.mailSync.whenIdle();
      const [state] = await ctx.db.sequelize.query<{ attempted: boolean }>('SELECT last_attempt_at IS NOT NULL AS attempted FROM mail_sync_states WHERE email_account_id = $1', {
        bind: [emailAccount.id],
        type: QueryTypes.SELECT,
      });
      expect(state, 'the new account was synced').to.deep.equal({ attempted: true });
    });
  });

  describe('GET /api/admin/users', () => {
    it('filters by role and search text and pages the result', async () => {
      const tag = uniqueName('srch');
      const ctx = await testContext();
      for (const [i, role] of (['admin', 'member', 'member'] as const).entries()) {
        await ctx.services.users.create({ username: `${tag}-${i}`, role, firstName: null, lastName: null }, { actor: 'test' });
      }
      const all = await asAdmin(request(app).get(`/api/admin/users?search=${tag.toUpperCase()}`));
      expect(all.status).to.equal(200);
      expect(all.body.data.pagination).to.deep.equal({ page: 1, limit: 50, total: 3, totalExact: true, hasNext: false });
      expect(all.body.data.items.map((u: { username: string }) => u.username)).to.deep.equal([`${tag}-0`, `${tag}-1`, `${tag}-2`]);
      expect(all.body.data.items[0]).not.to.have.any.keys('password', 'tempPassword');

      const members = await asAdmin(request(app).get(`/api/admin/users?search=${tag}&role=member&limit=1&page=2`));
      expect(members.body.data.pagination).to.deep.equal({ page: 2, limit: 1, total: 2, totalExact: true, hasNext: false });
      expect(members.body.data.items.map((u: { username: string }) => u.username)).to.deep.equal([`${tag}-2`]);
    });

    it('treats % and _ in the search text literally', async () => {
      const res = await asAdmin(request(app).get('/api/admin/users?search=%25'));
      expect(res.status).to.equal(200);
      expect(res.body.data.pagination.total).to.equal(0);
    });

    it('rejects bad filters with 400', async () => {
      for (const q of ['limit=101', 'page=0', 'role=owner', 'limit=abc', 'role=admin&role=member']) {
        const res = await asAdmin(request(app).get(`/api/admin/users?${q}`));
        expect(res.status, q).to.equal(400);
      }
    });
  });

  describe('GET /api/admin/users/:id', () => {
    it('returns one user, 404 for an unknown id and 400 for a non-UUID', async () => {
      const found = await asAdmin(request(app).get(`/api/admin/users/${member.user.id}`));
      expect(found.status).to.equal(200);
      expect(found.body.data.user).to.include({ id: member.user.id, username: member.username, role: 'member' });
      const missing = await asAdmin(request(app).get('/api/admin/users/00000000-0000-4000-8000-000000000000'));
      expect(missing.status).to.equal(404);
      const bad = await asAdmin(request(app).get('/api/admin/users/123'));
      expect(bad.status).to.equal(400);
    });
  });

  describe('PATCH /api/admin/users/:id', () => {
    it('changes names and role, auditing each kind of change', async () => {
      const target = await createUser({ role: 'member' });
      const res = await asAdmin(request(app).patch(`/api/admin/users/${target.user.id}`)).send({ firstName: 'Nové', lastName: null, role: 'admin' });
      expect(res.status).to.equal(200);
      expect(res.body.data.user).to.include({ firstName: 'Nové', lastName: null, role: 'admin' });
      const [roleChange] = await auditOf(AuditActions.roleChanged, target.user.id);
      expect(roleChange?.details).to.deep.equal({ from: 'member', to: 'admin' });
      expect(roleChange?.actor).to.equal(`user:${admin.user.id}`);
      const [updated] = await auditOf(AuditActions.userUpdated, target.user.id);
      expect(updated?.details).to.deep.equal({ fields: ['firstName', 'lastName'] });
    });

    it('rejects an empty change, an unknown role and a missing user', async () => {
      const empty = await asAdmin(request(app).patch(`/api/admin/users/${member.user.id}`)).send({});
      expect(empty.status).to.equal(400);
      const role = await asAdmin(request(app).patch(`/api/admin/users/${member.user.id}`)).send({ role: 'root' });
      expect(role.status).to.equal(400);
      const missing = await asAdmin(request(app).patch('/api/admin/users/00000000-0000-4000-8000-000000000000')).send({ role: 'member' });
      expect(missing.status).to.equal(404);
    });
  });

  describe('POST /api/admin/users/:id/reset-password', () => {
    it('issues a new temporary password, sends the user back to onboarding and ends all their sessions', async () => {
      const target = await createUser({ role: 'admin', password: 'a-long-own-passphrase' });
      const first = await sessionFor(target);
      const second = await sessionFor(target);
      expect((await request(app).get('/api/admin/users').set('Authorization', first.bearer)).status).to.equal(200);

      const res = await asAdmin(request(app).post(`/api/admin/users/${target.user.id}/reset-password`));
      expect(res.status).to.equal(200);
      expect(res.headers['cache-control']).to.equal('no-store');
      const { temporaryPassword } = res.body.data;
      expect(temporaryPassword).to.match(/^[A-Za-z0-9]{12,}$/);

      for (const s of [first, second]) {
        expect((await request(app).get('/api/admin/users').set('Authorization', s.bearer)).status).to.equal(401);
      }
      expect(await Session.count({ where: { userId: target.user.id, revokedAt: null } })).to.equal(0);
      await target.user.reload();
      expect(target.user.changedPassword).to.equal(false);
      expect(target.user.password).to.equal(null);
      expect(target.user.tempPasswordExpiresAt!.getTime()).to.be.greaterThan(Date.now());
      const ctx = await testContext();
      expect(await ctx.services.hasher.verify(temporaryPassword, target.user.tempPassword)).to.equal(true);
      expect(await ctx.services.hasher.verify(target.temporaryPassword, target.user.tempPassword)).to.equal(false);
      const [record] = await auditOf(AuditActions.tempPasswordReset, target.user.id);
      expect(record?.actor).to.equal(`user:${admin.user.id}`);
      expect(record?.details).to.deep.equal({ revokedSessions: 2 });
      expect(JSON.stringify(record?.details)).not.to.contain(temporaryPassword);
    });

    it('answers 404 for an unknown user', async () => {
      const res = await asAdmin(request(app).post('/api/admin/users/00000000-0000-4000-8000-000000000000/reset-password'));
      expect(res.status).to.equal(404);
    });
  });

  describe('DELETE /api/admin/users/:id', () => {
    it('deletes the user with their email accounts and sessions; the audit record keeps the name', async () => {
      const ctx = await testContext();
      const target = await createUser({ role: 'member' });
      const account = await ctx.services.emailAccounts.add(target.user.id, { email: 'bob@example.test', emailPassword: 'bobpw' }, { actor: 'test' });
      const s = await sessionFor(target);
      const res = await asAdmin(request(app).delete(`/api/admin/users/${target.user.id}`));
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true, message: 'Používateľ odstránený' });
      expect(await User.findByPk(target.user.id)).to.equal(null);
      expect(await EmailAccount.findByPk(account.id)).to.equal(null);
      expect((await request(app).get('/api/admin/users').set('Authorization', s.bearer)).status).to.equal(401);
      const record = await AuditLog.findOne({ where: { action: AuditActions.userDeleted, username: target.username } });
      expect(record?.actor).to.equal(`user:${admin.user.id}`);
      expect(record?.details).to.deep.include({ userId: target.user.id, role: 'member' });
      const again = await asAdmin(request(app).delete(`/api/admin/users/${target.user.id}`));
      expect(again.status).to.equal(404);
    });
  });
});
