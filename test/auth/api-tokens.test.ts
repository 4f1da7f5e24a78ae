import crypto from 'node:crypto';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { createAppContext } from '../../src/app/context.js';
import { createApp } from '../../src/app/http-app.js';
import { createLogger, type Logger } from '../../src/logging/logger.js';
import { AuditLog } from '../../src/models/index.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { testApp, testContext } from '../support/harness.js';
import { until } from '../support/poll.js';
import { onboardedUser } from './helpers.js';

/** Issue 48: personal API tokens over HTTP, against the real database. */
describe('personal API tokens (/api/tokens, Authorization: Bearer crm_pat_...)', function () {
  this.timeout(60_000);
  let app: Express;

  before(async () => {
    app = await testApp();
  });

  async function tokenFor(session: TestSession, scopes: string[], extra: Record<string, unknown> = {}) {
    const res = await request(app)
      .post('/api/tokens')
      .set('Authorization', session.bearer)
      .send({ name: `test ${crypto.randomUUID()}`, scopes, ...extra });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.data as { token: string; apiToken: { id: string; name: string; scopes: string[]; expiresAt: string | null; lastUsedAt: string | null; createdAt: string } };
  }

  const withToken = (method: 'get' | 'post' | 'patch' | 'delete', path: string, token: string) => request(app)[method](path).set('Authorization', `Bearer ${token}`);

  async function member(): Promise<{ user: UserFixture; session: TestSession }> {
    const user = await onboardedUser();
    return { user, session: await sessionFor(user) };
  }

  it('creates a token: the secret once (crm_pat_, 51 characters), its record, and lists it without the secret', async () => {
    const { session } = await member();
    const created = await tokenFor(session, ['contacts:read', 'emails:write'], { expiresAt: new Date(Date.now() + 86_400_000).toISOString() });
    expect(created.token).to.match(/^crm_pat_[A-Za-z0-9_-]{43}$/);
    expect(created.apiToken).to.include({ lastUsedAt: null });
    expect(created.apiToken.scopes).to.deep.equal(['contacts:read', 'emails:write']);
    expect(created.apiToken.expiresAt).to.be.a('string');
    const list = await request(app).get('/api/tokens').set('Authorization', session.bearer);
    expect(list.status).to.equal(200);
    expect(list.body.data.pagination).to.include({ page: 1, total: 1 });
    expect(list.body.data.items.map((t: { id: string }) => t.id)).to.deep.equal([created.apiToken.id]);
    expect(JSON.stringify(list.body)).not.to.contain(created.token);
  });

  it('stores only the SHA-256 of the secret: no column of the row holds it', async () => {
    const { session } = await member();
    const { token, apiToken } = await tokenFor(session, ['contacts:read']);
    const ctx = await testContext();
    const [row] = await ctx.db.sequelize.query<Record<string, unknown>>('SELECT * FROM api_tokens WHERE id = $id', { bind: { id: apiToken.id }, type: QueryTypes.SELECT });
    expect(row.token_hash).to.equal(crypto.createHash('sha256').update(token).digest('hex'));
    const secretPart = token.slice('crm_pat_'.length);
    for (const [column, value] of Object.entries(row)) expect(JSON.stringify(value) ?? '', column).not.to.contain(secretPart);
  });

  it('answers /api/auth/me with any valid token, and 401 for an unknown or malformed one', async () => {
    const { user, session } = await member();
    const { token } = await tokenFor(session, ['timesheets:read']);
    const me = await withToken('get', '/api/auth/me', token);
    expect(me.status, JSON.stringify(me.body)).to.equal(200);
    expect(me.body.data.user.username).to.equal(user.username);
    expect((await withToken('get', '/api/auth/me', `crm_pat_${crypto.randomBytes(32).toString('base64url')}`)).status).to.equal(401);
    expect((await withToken('get', '/api/auth/me', 'crm_pat_short')).status).to.equal(401);
  });

  it('allows what the scopes cover (write includes read) and refuses the rest with 403 insufficient_scope', async () => {
    const { session } = await member();
    const reader = (await tokenFor(session, ['contacts:read'])).token;
    const writer = (await tokenFor(session, ['contacts:write'])).token;
    const missing = crypto.randomUUID();
    expect((await withToken('get', '/api/contacts', reader)).status).to.equal(200);
    expect((await withToken('get', '/api/contacts', writer)).status).to.equal(200);
    const refusedWrite = await withToken('delete', `/api/contacts/${missing}`, reader);
    expect(refusedWrite.status).to.equal(403);
    expect(refusedWrite.body.error).to.include({ code: 'insufficient_scope' });
    expect(refusedWrite.body.error.details).to.deep.equal({ requiredScope: 'contacts:write' });
    // Past the scope check: the handler answers (no such contact).
    expect((await withToken('delete', `/api/contacts/${missing}`, writer)).status).to.equal(404);
    const otherArea = await withToken('get', '/api/companies', reader);
    expect(otherArea.status).to.equal(403);
    expect(otherArea.body.error.details).to.deep.equal({ requiredScope: 'companies:read' });
    expect((await withToken('get', '/api/timesheets/my', reader)).status).to.equal(403);
    expect((await withToken('get', '/api/emails', reader)).status).to.equal(403);
  });

  it('never reaches password, onboarding, session, logout or token management paths (403 api_token_not_allowed)', async () => {
    const { session } = await member();
    // Every scope a member may have: still none of these.
    const { token } = await tokenFor(session, ['emails:write', 'contacts:write', 'companies:write', 'timesheets:write', 'people:write', 'conversations:write', 'tasks:write']);
    const refused: Array<['get' | 'post' | 'delete', string]> = [
      ['post', '/api/tokens'],
      ['get', '/api/tokens'],
      ['delete', `/api/tokens/${crypto.randomUUID()}`],
      ['post', '/api/auth/set-password'],
      ['post', '/api/auth/link-email'],
      ['post', '/api/auth/skip-email'],
      ['get', '/api/auth/sessions'],
      ['post', '/api/auth/sessions/revoke-others'],
      ['post', '/api/auth/logout'],
      ['get', '/api/events'],
    ];
    for (const [method, path] of refused) {
      const res = await withToken(method, path, token).send(method === 'get' ? undefined : {});
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.equal(403);
      expect(res.body.error.code, `${method} ${path}`).to.equal('api_token_not_allowed');
    }
    // The token still works (the logout above ended nothing).
    expect((await withToken('get', '/api/auth/me', token)).status).to.equal(200);
  });

  it('gives a token never more than its user: a member asking for admin gets 400 with a Slovak message', async () => {
    const { session } = await member();
    const res = await request(app)
      .post('/api/tokens')
      .set('Authorization', session.bearer)
      .send({ name: 'x', scopes: ['admin'] });
    expect(res.status).to.equal(400);
    expect(res.body.error.message).to.equal('Oprávnenie admin môže mať iba token administrátora');
    const unknown = await request(app)
      .post('/api/tokens')
      .set('Authorization', session.bearer)
      .send({ name: 'x', scopes: ['contacts:delete'] });
    expect(unknown.status).to.equal(400);
  });

  it("refuses admin routes to an admin's token without the admin scope, and allows them with it", async () => {
    const admin = await createUser({ role: 'admin' });
    const session = await sessionFor(admin);
    const plain = (await tokenFor(session, ['timesheets:read'])).token;
    const full = (await tokenFor(session, ['admin', 'timesheets:read'])).token;
    const refused = await withToken('get', '/api/admin/users', plain);
    expect(refused.status).to.equal(403);
    expect(refused.body.error.details).to.deep.equal({ requiredScope: 'admin' });
    expect((await withToken('get', '/api/timesheets/all', plain)).status).to.equal(403);
    expect((await withToken('get', '/api/admin/users', full)).status).to.equal(200);
    expect((await withToken('get', '/api/timesheets/all', full)).status).to.equal(200);
    expect((await withToken('get', '/api/timesheets/my', plain)).status).to.equal(200);
  });

  it('stops working when it expires, and refuses an expiry in the past', async () => {
    const { session } = await member();
    const past = await request(app)
      .post('/api/tokens')
      .set('Authorization', session.bearer)
      .send({ name: 'old', scopes: ['contacts:read'], expiresAt: new Date(Date.now() - 1000).toISOString() });
    expect(past.status).to.equal(400);
    const { token } = await tokenFor(session, ['contacts:read'], { expiresAt: new Date(Date.now() + 3000).toISOString() });
    expect((await withToken('get', '/api/contacts', token)).status).to.equal(200);
    await until(async () => (await withToken('get', '/api/contacts', token)).status === 401, { what: 'the token to expire', timeoutMs: 15_000 });
  });

  it('is revoked at once (the very next request is 401); someone else cannot revoke it (404)', async () => {
    const owner = await member();
    const stranger = await member();
    const { token, apiToken } = await tokenFor(owner.session, ['contacts:read']);
    // Served from memory from here on: the revocation must reach the cache, not only the table.
    const ctx = await testContext();
    await until(async () => (await withToken('get', '/api/contacts', token)).status === 200 && ctx.services.apiTokens.cacheStats().listening, {
      what: 'the token cache to listen',
    });
    expect((await withToken('get', '/api/contacts', token)).status).to.equal(200);
    const foreign = await request(app).delete(`/api/tokens/${apiToken.id}`).set('Authorization', stranger.session.bearer);
    expect(foreign.status).to.equal(404);
    expect((await withToken('get', '/api/contacts', token)).status).to.equal(200);
    const revoked = await request(app).delete(`/api/tokens/${apiToken.id}`).set('Authorization', owner.session.bearer);
    expect(revoked.status).to.equal(200);
    expect((await withToken('get', '/api/contacts', token)).status).to.equal(401);
    expect((await request(app).delete(`/api/tokens/${apiToken.id}`).set('Authorization', owner.session.bearer)).status).to.equal(404);
    const list = await request(app).get('/api/tokens').set('Authorization', owner.session.bearer);
    expect(list.body.data.items).to.deep.equal([]);
  });

  it('is served from memory once checked, and a revocation made outside this process (another instance) still ends it', async () => {
    const { session } = await member();
    const { token, apiToken } = await tokenFor(session, ['contacts:read']);
    const ctx = await testContext();
    await until(async () => (await withToken('get', '/api/contacts', token)).status === 200 && ctx.services.apiTokens.cacheStats().listening, {
      what: 'the token cache to listen',
    });
    expect((await withToken('get', '/api/contacts', token)).status).to.equal(200);
    expect(ctx.services.apiTokens.cacheStats().entries).to.be.greaterThan(0);
    // Plain SQL, as another instance or crm-admin would: only the notification tells this process.
    await ctx.db.sequelize.query('DELETE FROM api_tokens WHERE id = $id', { bind: { id: apiToken.id } });
    await until(async () => (await withToken('get', '/api/contacts', token)).status === 401, { what: 'the cached token to be refused' });
  });

  it('is 401 once its user is disabled, and gone with a deleted user', async () => {
    const admin = await createUser({ role: 'admin' });
    const adminSession = await sessionFor(admin);
    const { user, session } = await member();
    const { token } = await tokenFor(session, ['contacts:read']);
    expect((await withToken('get', '/api/contacts', token)).status).to.equal(200);
    expect((await request(app).post(`/api/admin/users/${user.user.id}/disable`).set('Authorization', adminSession.bearer)).status).to.equal(200);
    expect((await withToken('get', '/api/contacts', token)).status).to.equal(401);
    expect((await request(app).post(`/api/admin/users/${user.user.id}/enable`).set('Authorization', adminSession.bearer)).status).to.equal(200);
    expect((await withToken('get', '/api/contacts', token)).status).to.equal(200);
    expect((await request(app).delete(`/api/admin/users/${user.user.id}`).set('Authorization', adminSession.bearer)).status).to.equal(200);
    expect((await withToken('get', '/api/contacts', token)).status).to.equal(401);
    const ctx = await testContext();
    const rows = await ctx.db.sequelize.query('SELECT id FROM api_tokens WHERE user_id = $id', { bind: { id: user.user.id }, type: QueryTypes.SELECT });
    expect(rows).to.have.length(0);
  });

  it("answers only me and session after an administrator's password reset, until a password is set again", async () => {
    const admin = await createUser({ role: 'admin' });
    const adminSession = await sessionFor(admin);
    const { user, session } = await member();
    const { token } = await tokenFor(session, ['contacts:read']);
    expect((await request(app).post(`/api/admin/users/${user.user.id}/reset-password`).set('Authorization', adminSession.bearer)).status).to.equal(200);
    const refused = await withToken('get', '/api/contacts', token);
    expect(refused.status).to.equal(403);
    expect(refused.body.error.code).to.equal('password_change_required');
    expect((await withToken('get', '/api/auth/me', token)).status).to.equal(200);
  });

  it('cannot be created by a user who still has a temporary password', async () => {
    const fresh = await createUser({ temporary: true });
    const session = await sessionFor(fresh);
    const res = await request(app)
      .post('/api/tokens')
      .set('Authorization', session.bearer)
      .send({ name: 'x', scopes: ['contacts:read'] });
    expect(res.status).to.equal(403);
    expect(res.body.error.code).to.equal('password_change_required');
  });

  it('audits creation, revocation and use (use at most once per token in 10 minutes), never with the secret', async () => {
    const { user, session } = await member();
    const { token, apiToken } = await tokenFor(session, ['contacts:read']);
    for (let i = 0; i < 3; i++) expect((await withToken('get', '/api/contacts', token)).status).to.equal(200);
    const used = await AuditLog.findAll({ where: { action: 'api_token.used', userId: user.user.id } });
    expect(used).to.have.length(1);
    expect(used[0].details).to.deep.include({ tokenId: apiToken.id });
    const list = await request(app).get('/api/tokens').set('Authorization', session.bearer);
    expect(list.body.data.items[0].lastUsedAt).to.be.a('string');
    await request(app).delete(`/api/tokens/${apiToken.id}`).set('Authorization', session.bearer).expect(200);
    const rows = await AuditLog.findAll({ where: { userId: user.user.id }, order: [['id', 'ASC']] });
    const actions = rows.map((r) => r.action).filter((a) => a.startsWith('api_token.'));
    expect(actions).to.deep.equal(['api_token.created', 'api_token.used', 'api_token.revoked']);
    expect(rows.find((r) => r.action === 'api_token.created')!.details).to.deep.include({ tokenId: apiToken.id, scopes: ['contacts:read'] });
    for (const row of rows) expect(JSON.stringify(row.toJSON())).not.to.contain(token.slice('crm_pat_'.length));
  });
});

describe('API token secrets in logs and audit records', function () {
  this.timeout(60_000);

  /** A logger writing every line (debug and up) into an array. */
  function capture(): { logger: Logger; lines: string[] } {
    const stream = new PassThrough();
    const lines: string[] = [];
    stream.on('data', (c: Buffer) => lines.push(c.toString()));
    return { logger: createLogger('debug', { stream }), lines };
  }

  it('never writes the secret into the log or the audit log, on success or on any refusal', async () => {
    const base = await testContext();
    const { logger, lines } = capture();
    const ctx = await createAppContext({ config: base.config, logger, db: base.db });
    const app = createApp(ctx);
    const user = await onboardedUser();
    const session = await sessionFor(user);
    const created = await request(app)
      .post('/api/tokens')
      .set('Authorization', session.bearer)
      .send({ name: 'log check', scopes: ['contacts:read'] });
    expect(created.status).to.equal(201);
    const token = created.body.data.token as string;
    const bearer = `Bearer ${token}`;
    await request(app).get('/api/contacts').set('Authorization', bearer).expect(200);
    await request(app).get('/api/companies').set('Authorization', bearer).expect(403);
    await request(app)
      .post('/api/tokens')
      .set('Authorization', bearer)
      .send({ name: 'x', scopes: ['contacts:read'] })
      .expect(403);
    await request(app).get(`/api/contacts?token=${token}`).set('Authorization', bearer).expect(400);
    await request(app).delete(`/api/tokens/${created.body.data.apiToken.id}`).set('Authorization', session.bearer).expect(200);
    await request(app).get('/api/contacts').set('Authorization', bearer).expect(401);
    await new Promise((r) => setTimeout(r, 50));
    const log = lines.join('');
    // The capture works: the requests above were logged.
    expect(log).to.contain('/api/tokens');
    expect(log).not.to.contain(token.slice('crm_pat_'.length));
    const audit = await AuditLog.findAll({ where: { userId: user.user.id } });
    expect(audit.map((r) => r.action)).to.include.members(['api_token.created', 'api_token.used', 'api_token.revoked']);
    expect(JSON.stringify(audit.map((r) => r.toJSON()))).not.to.contain(token.slice('crm_pat_'.length));
  });
});
