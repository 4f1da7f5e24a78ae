import { expect } from 'chai';
import request from 'supertest';
import { AppConfig, ConfigError } from '../../src/config/config.js';
import { sessionFor } from '../support/auth.js';
import { createUser, uniqueName } from '../support/factories.js';
import { baseTestEnv, testApp } from '../support/harness.js';

const DAY_MS = 24 * 3600 * 1000;

/**
 * TEMP_PASSWORD_TTL_DAYS: how long a temporary password (a new user's, a reset one) works. That an
 * expired one is refused at login is test/auth/login.test.ts's.
 */
describe('TEMP_PASSWORD_TTL_DAYS', function () {
  this.timeout(60_000);
  let admin: string;

  before(async () => {
    admin = (await sessionFor(await createUser({ role: 'admin' }))).bearer;
  });

  /** The expiry the admin API answers for a new user, and the window it must fall in for `days`. */
  async function newUserExpiry(overrides: Record<string, string>): Promise<{ expiresAt: number; from: number; to: number }> {
    const app = await testApp(overrides);
    const from = Date.now();
    const res = await request(app)
      .post('/api/admin/users')
      .set('Authorization', admin)
      .send({ username: uniqueName('ttl'), role: 'member' });
    const to = Date.now();
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return { expiresAt: Date.parse(res.body.data.user.temporaryPasswordExpiresAt as string), from, to };
  }

  it('a new user’s temporary password works for the configured number of days (default 7)', async () => {
    const two = await newUserExpiry({ TEMP_PASSWORD_TTL_DAYS: '2' });
    expect(two.expiresAt).to.be.within(two.from + 2 * DAY_MS - 1000, two.to + 2 * DAY_MS + 1000);
    const byDefault = await newUserExpiry({});
    expect(byDefault.expiresAt).to.be.within(byDefault.from + 7 * DAY_MS - 1000, byDefault.to + 7 * DAY_MS + 1000);
  });

  it('a reset temporary password gets the same period', async () => {
    const app = await testApp({ TEMP_PASSWORD_TTL_DAYS: '3' });
    const target = await createUser();
    const from = Date.now();
    const res = await request(app).post(`/api/admin/users/${target.user.id}/reset-password`).set('Authorization', admin);
    const to = Date.now();
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    await target.user.reload();
    expect(target.user.tempPasswordExpiresAt!.getTime()).to.be.within(from + 3 * DAY_MS - 1000, to + 3 * DAY_MS + 1000);
  });

  it('refuses a period outside 1 to 90 days at start, naming the variable', () => {
    for (const bad of ['0', '91', 'week']) {
      expect(() => AppConfig.fromEnv({ ...baseTestEnv(), TEMP_PASSWORD_TTL_DAYS: bad }), bad)
        .to.throw(ConfigError)
        .with.property('message')
        .that.includes('TEMP_PASSWORD_TTL_DAYS');
    }
  });
});
