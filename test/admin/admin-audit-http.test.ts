import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { AuditActions } from '../../src/audit/audit-service.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp } from '../support/harness.js';
import { cliJson } from './cli-helpers.js';

describe('admin audit log API (GET /api/admin/audit-logs)', function () {
  this.timeout(60_000);
  let app: Express;
  let admin: UserFixture;
  let adminSession: TestSession;

  before(async () => {
    app = await testApp();
    admin = await createUser({ role: 'admin' });
    adminSession = await sessionFor(admin);
  });

  const get = (query: string) => request(app).get(`/api/admin/audit-logs?${query}`).set('Authorization', adminSession.bearer);

  it('tells web and CLI actions apart by actor, newest first', async () => {
    const target = await createUser({ role: 'member' });
    const web = await request(app).patch(`/api/admin/users/${target.user.id}`).set('Authorization', adminSession.bearer).send({ role: 'admin' });
    expect(web.status).to.equal(200);
    await cliJson(['users', 'set-role', target.username, 'member']);

    const res = await get(`userId=${target.user.id}&action=${AuditActions.roleChanged}`);
    expect(res.status).to.equal(200);
    expect(res.body.message).to.equal('Záznamy auditu');
    expect(res.body.data.pagination).to.deep.equal({ page: 1, limit: 50, total: 2, totalExact: true, hasNext: false });
    const [cliRecord, webRecord] = res.body.data.items;
    expect(cliRecord.actor).to.match(/^cli:.+/);
    expect(cliRecord.details).to.deep.equal({ from: 'admin', to: 'member' });
    expect(cliRecord.userAgent).to.equal('crm-admin');
    expect(webRecord.actor).to.equal(`user:${admin.user.id}`);
    expect(webRecord.details).to.deep.equal({ from: 'member', to: 'admin' });
    expect(webRecord).to.include.keys('id', 'action', 'userId', 'username', 'success', 'ip', 'userAgent', 'createdAt');
    expect(new Date(cliRecord.createdAt).getTime()).to.be.at.least(new Date(webRecord.createdAt).getTime());
  });

  it('filters by username, action prefix, success and time window, and pages', async () => {
    const target = await createUser({ role: 'member' });
    const set = (body: object) => request(app).patch(`/api/admin/users/${target.user.id}`).set('Authorization', adminSession.bearer).send(body);
    expect((await set({ firstName: 'A' })).status).to.equal(200);
    expect((await set({ firstName: 'B' })).status).to.equal(200);
    expect((await set({ role: 'admin' })).status).to.equal(200);

    const adminActions = await get(`username=${target.username.toUpperCase()}&action=admin.*`);
    expect(adminActions.body.data.items.map((r: { action: string }) => r.action)).to.deep.equal([
      AuditActions.roleChanged,
      AuditActions.userUpdated,
      AuditActions.userUpdated,
      AuditActions.userCreated,
    ]);
    const page2 = await get(`username=${target.username}&action=admin.*&limit=3&page=2`);
    expect(page2.body.data.pagination).to.deep.equal({ page: 2, limit: 3, total: 4, totalExact: true, hasNext: false });
    expect(page2.body.data.items.map((r: { action: string }) => r.action)).to.deep.equal([AuditActions.userCreated]);

    const failures = await get(`username=${target.username}&success=false`);
    expect(failures.body.data.pagination.total).to.equal(0);
    const future = await get(`username=${target.username}&since=2999-01-01`);
    expect(future.body.data.items).to.deep.equal([]);
    const window = await get(`username=${target.username}&since=2000-01-01T00:00:00Z&until=2999-01-01T00:00:00%2B02:00`);
    expect(window.body.data.pagination.total).to.equal(4);
    const literal = await get('action=%25*');
    expect(literal.body.data.pagination.total).to.equal(0);
  });

  it('rejects bad filters with 400', async () => {
    for (const q of ['limit=101', 'page=0', 'userId=123', 'since=yesterday', 'since=2024-13-01', 'success=maybe', 'since=2024-05-02&until=2024-05-01', 'action=a&action=b']) {
      const res = await get(q);
      expect(res.status, q).to.equal(400);
      expect(res.body.success).to.equal(false);
    }
  });
});
