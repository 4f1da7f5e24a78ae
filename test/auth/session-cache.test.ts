import { expect } from 'chai';
import pg from 'pg';
import request from 'supertest';
import { User } from '../../src/models/index.js';
import { testContext } from '../support/harness.js';
import { requireDatabaseUrl } from '../support/test-env.js';
import { authApp, loggedIn, me, onboardedUser } from './helpers.js';

/** Polls until the condition holds; fails after the deadline (a bound on correctness, not a timing assertion). */
async function eventually(condition: () => Promise<boolean>, deadlineMs = 5000): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not reached before the deadline');
    await new Promise((r) => setTimeout(r, 25));
  }
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
    await eventually(async () => (await me(app, login.accessToken)).status === 200 && ctx.services.sessions.cacheStats().listening);
    expect((await me(app, login.accessToken)).status).to.equal(200);
    expect(ctx.services.sessions.cacheStats().entries).to.be.greaterThan(0);
    const sid = JSON.parse(Buffer.from(login.accessToken.split('.')[1], 'base64url').toString()).sid as string;
    return { app, user, login, sid };
  }

  it('a revocation made outside this process (another instance) ends the cached session', async () => {
    const { app, login, sid } = await warmSession();
    await outsideWrite("UPDATE sessions SET revoked_at = now(), revoked_reason = 'elsewhere' WHERE id = $1", [sid]);
    await eventually(async () => (await me(app, login.accessToken)).status === 401);
  });

  it('a role change made outside this process reaches the cached user', async () => {
    const { app, user, login } = await warmSession();
    await outsideWrite("UPDATE users SET role = 'admin' WHERE id = $1", [user.user.id]);
    await eventually(async () => (await me(app, login.accessToken)).body.data?.user?.role === 'admin');
  });

  it('a user deleted outside this process loses access', async () => {
    const { app, user, login } = await warmSession();
    await outsideWrite('DELETE FROM users WHERE id = $1', [user.user.id]);
    await eventually(async () => (await me(app, login.accessToken)).status === 401);
  });

  it('changes made through the models in this process apply to the very next request, in every app', async () => {
    const { app, user, login } = await warmSession();
    const other = await authApp({ LOG_LEVEL: 'warn' });
    await eventually(async () => (await me(other, login.accessToken)).status === 200);
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
});
