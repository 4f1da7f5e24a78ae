import { expect } from 'chai';
import pg from 'pg';
import request from 'supertest';
import { User } from '../../src/models/index.js';
import { createUser } from '../support/factories.js';
import { testContext } from '../support/harness.js';
import { until } from '../support/poll.js';
import { requireDatabaseUrl } from '../support/test-env.js';
import { authApp, loggedIn, me, onboardedUser } from './helpers.js';

/** Polls until the condition holds; fails after the deadline (a bound on correctness, not a timing assertion). */
/** The cache hears of outside writes through LISTEN/NOTIFY: asynchronously, but within moments. */
async function eventually(condition: () => Promise<boolean>, what: string): Promise<void> {
  await until(condition, { what, timeoutMs: 5000 });
}

/** A write no Sequelize hook of this process sees, like one made by another instance or by psql. */
async function outsideWrite(sql: string, values: unknown[]): Promise<void> {
  const client = new pg.Client({ connectionString: requireDatabaseUrl() });
  await client.connect();
  try {
    await client.query(sql, values);
  } finally {
    await client.end();
  }
}

describe('authenticated requests served from the session cache', () => {
  async function warmSession(overrides: Record<string, string> = {}) {
    const app = await authApp(overrides);
    const ctx = await testContext({ TRUST_PROXY: '1', ...overrides });
    const user = await onboardedUser();
    const login = await loggedIn(app, user.username, user.password);
    await eventually(async () => (await me(app, login.accessToken)).status === 200 && ctx.services.sessions.cacheStats().listening, 'the session cache to listen');
    expect((await me(app, login.accessToken)).status).to.equal(200);
    expect(ctx.services.sessions.cacheStats().entries).to.be.greaterThan(0);
    const sid = JSON.parse(Buffer.from(login.accessToken.split('.')[1], 'base64url').toString()).sid as string;
    return { app, user, login, sid };
  }

  it('a revocation made outside this process (another instance) ends the cached session', async () => {
    const { app, login, sid } = await warmSession();
    await outsideWrite("UPDATE sessions SET revoked_at = now(), revoked_reason = 'elsewhere' WHERE id = $1", [sid]);
    await eventually(async () => (await me(app, login.accessToken)).status === 401, 'the revoked session to be refused (401)');
  });

  it('a role change made outside this process reaches the cached user', async () => {
    const { app, user, login } = await warmSession();
    await outsideWrite("UPDATE users SET role = 'admin' WHERE id = $1", [user.user.id]);
    await eventually(async () => (await me(app, login.accessToken)).body.data?.user?.role === 'admin', 'the new role in /me');
  });

  it('a user deleted outside this process loses access', async () => {
    const { app, user, login } = await warmSession();
    await outsideWrite('DELETE FROM users WHERE id = $1', [user.user.id]);
    await eventually(async () => (await me(app, login.accessToken)).status === 401, 'the deleted user to be refused (401)');
  });

  it('changes made through the models in this process apply to the very next request, in every app', async () => {
    const { app, user, login } = await warmSession();
    const other = await authApp({ LOG_LEVEL: 'warn' });
    await eventually(async () => (await me(other, login.accessToken)).status === 200, 'the second app to accept the session');
    const stored = await User.findByPk(user.user.id);
    stored!.role = 'admin';
    stored!.firstName = 'Zmenené';
    await stored!.save();
    for (const target of [app, other]) {
      const res = await me(target, login.accessToken);
      expect(res.body.data.user).to.include({ role: 'admin', firstName: 'Zmenené' });
    }
    expect((await request(app).post('/api/auth/logout').set('Authorization', `Bearer ${login.accessToken}`)).status).to.equal(200);
    expect((await me(app, login.accessToken)).status).to.equal(401);
    expect((await me(other, login.accessToken)).status).to.equal(401);
  });

  it('a warm /me and /session answer from the cache alone: no database query, needsEmailSetup included', async () => {
    const { app, login } = await warmSession();
    const ctx = await testContext({ TRUST_PROXY: '1' });
    let queries = 0;
    ctx.db.sequelize.addHook('beforeQuery', 'count-me', () => {
      queries++;
    });
    try {
      for (let i = 0; i < 5; i++) {
        const res = await me(app, login.accessToken);
        expect(res.status).to.equal(200);
        expect(res.body.data).to.include({ needsPasswordChange: false, needsEmailSetup: false });
        expect((await request(app).get('/api/auth/session').set('Authorization', `Bearer ${login.accessToken}`)).status).to.equal(200);
      }
    } finally {
      ctx.db.sequelize.removeHook('beforeQuery', 'count-me');
    }
    expect(queries).to.equal(0);
  });

  it('an email account linked, deactivated or removed outside this process reaches the cached needsEmailSetup', async () => {
    const app = await authApp();
    const ctx = await testContext({ TRUST_PROXY: '1' });
    const fixture = await createUser({ password: 'Cache-Setup-Pass-2024' });
    const login = await loggedIn(app, fixture.username, 'Cache-Setup-Pass-2024');
    const setup = async () => (await me(app, login.accessToken)).body.data?.needsEmailSetup as boolean;
    await eventually(async () => (await setup()) === true && ctx.services.sessions.cacheStats().listening, 'a warm session that needs email setup');
    expect(await setup()).to.equal(true);
    await outsideWrite(`INSERT INTO email_accounts (user_id, email, email_password, jmap_account_id) VALUES ($1, 'cache@x.test', 'v1:x', 'j')`, [fixture.user.id]);
    await eventually(async () => (await setup()) === false, 'needsEmailSetup false after a link elsewhere');
    await outsideWrite('UPDATE email_accounts SET is_active = false WHERE user_id = $1', [fixture.user.id]);
    await eventually(async () => (await setup()) === true, 'needsEmailSetup true after a deactivation elsewhere');
    await outsideWrite('UPDATE email_accounts SET is_active = true WHERE user_id = $1', [fixture.user.id]);
    await eventually(async () => (await setup()) === false, 'needsEmailSetup false after a reactivation elsewhere');
    await outsideWrite('DELETE FROM email_accounts WHERE user_id = $1', [fixture.user.id]);
    await eventually(async () => (await setup()) === true, 'needsEmailSetup true after a removal elsewhere');
  });
});
