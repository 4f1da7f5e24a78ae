import { expect } from 'chai';
import { createUser, uniqueName } from '../support/factories.js';
import { loginViaHttp, randomIp } from '../support/login.js';
import { LOGIN_LIMITS } from '../../src/auth/login-throttle.js';
import { authApp, auditRows, expectErrorEnvelope, onboardedUser } from './helpers.js';

const INVALID = 'Nesprávne používateľské meno alebo heslo';

describe('failed-login throttling', () => {
  it('answers the 6th attempt from one IP with 429 and Retry-After, even with the right password', async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const ip = randomIp();
    for (let i = 0; i < LOGIN_LIMITS.perUsernameAndIp.points; i++) {
      expectErrorEnvelope((await loginViaHttp(app, user.username, `wrong-${i}-password`, { ip })).res, 401, INVALID);
    }
    const blocked = (await loginViaHttp(app, user.username, user.password, { ip })).res;
    expectErrorEnvelope(blocked, 429);
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).to.be.greaterThan(0).and.at.most(LOGIN_LIMITS.perUsernameAndIp.durationSeconds);
    expect(blocked.headers['set-cookie']).to.equal(undefined);
    const attempts = await auditRows({ action: 'auth.login_attempt', username: user.username });
    expect(attempts.at(-1)).to.include({ success: false, ip });
    expect((attempts.at(-1)!.details as { statusCode: number }).statusCode).to.equal(429);
  });

  it('does not lock the user out from another IP', async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const attacker = randomIp();
    for (let i = 0; i < LOGIN_LIMITS.perUsernameAndIp.points + 2; i++) await loginViaHttp(app, user.username, 'guessing-password', { ip: attacker });
    expectErrorEnvelope((await loginViaHttp(app, user.username, user.password, { ip: attacker })).res, 429);
    const { res } = await loginViaHttp(app, user.username, user.password, { ip: randomIp() });
    expect(res.status).to.equal(200);
  });

  it('starts the username+IP counter from zero after a successful login', async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const ip = randomIp();
    const almost = LOGIN_LIMITS.perUsernameAndIp.points - 1;
    for (let i = 0; i < almost; i++) expectErrorEnvelope((await loginViaHttp(app, user.username, 'wrong-password-x', { ip })).res, 401);
    expect((await loginViaHttp(app, user.username, user.password, { ip })).res.status).to.equal(200);
    for (let i = 0; i < almost; i++) expectErrorEnvelope((await loginViaHttp(app, user.username, 'wrong-password-y', { ip })).res, 401);
    expect((await loginViaHttp(app, user.username, user.password, { ip })).res.status).to.equal(200);
  });

  it('counts unknown usernames too, and limits one IP spraying many accounts', async () => {
    const app = await authApp();
    const ip = randomIp();
    const target = await onboardedUser();
    for (let i = 0; i < LOGIN_LIMITS.perIp.points; i++) {
      expectErrorEnvelope((await loginViaHttp(app, uniqueName('spray'), 'Password1!', { ip })).res, 401);
    }
    expectErrorEnvelope((await loginViaHttp(app, target.username, target.password, { ip })).res, 429);
    expect((await loginViaHttp(app, target.username, target.password, { ip: randomIp() })).res.status).to.equal(200);
  });

  it('holds across instances: counters live in PostgreSQL, not in one process', async () => {
    // Two differently configured apps have separate service objects (separate limiter instances).
    const first = await authApp();
    const second = await authApp({ LOG_LEVEL: 'warn' });
    const fixture = await createUser({ temporary: true });
    const ip = randomIp();
    for (let i = 0; i < LOGIN_LIMITS.perUsernameAndIp.points; i++) {
      const app = i % 2 === 0 ? first : second;
      expectErrorEnvelope((await loginViaHttp(app, fixture.username, 'wrong-password-z', { ip })).res, 401);
    }
    expectErrorEnvelope((await loginViaHttp(second, fixture.username, fixture.temporaryPassword, { ip })).res, 429);
    expectErrorEnvelope((await loginViaHttp(first, fixture.username, fixture.temporaryPassword, { ip })).res, 429);
  });

  it('cannot be raced: parallel wrong guesses beyond the limit get 429, not extra password checks', async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const ip = randomIp();
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => loginViaHttp(app, user.username, `parallel-guess-${i}`, { ip })));
    const statuses = results.map((r) => r.res.status);
    expect(statuses.filter((s) => s === 401)).to.have.length(LOGIN_LIMITS.perUsernameAndIp.points);
    expect(statuses.filter((s) => s === 429)).to.have.length(12 - LOGIN_LIMITS.perUsernameAndIp.points);
  });
});
