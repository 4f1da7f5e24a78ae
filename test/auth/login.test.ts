import { expect } from 'chai';
import request from 'supertest';
import { AuditLog, User } from '../../src/models/index.js';
import { createUser, uniqueName } from '../support/factories.js';
import { loginViaHttp, parseSetCookies, randomIp } from '../support/login.js';
import { authApp, auditRows, expectErrorEnvelope, me, onboardedUser } from './helpers.js';

const INVALID = 'Nesprávne používateľské meno alebo heslo';

describe('POST /api/auth/login', () => {
  it('logs a new user in with the temporary password: user, both tokens, onboarding flags, message', async () => {
    const app = await authApp();
    const fixture = await createUser({ temporary: true });
    const { res, accessToken, refreshToken } = await loginViaHttp(app, fixture.username, fixture.temporaryPassword, { ip: randomIp() });
    expect(res.status).to.equal(200);
    expect(res.body.success).to.equal(true);
    expect(res.body.message).to.equal('Prihlásenie úspešné');
    const { data } = res.body;
    expect(data.user).to.include({ id: fixture.user.id, username: fixture.username, role: 'member' });
    expect(data.user).to.not.have.any.keys('password', 'tempPassword', 'temp_password');
    expect(data.tokens.accessToken).to.be.a('string').and.equal(accessToken);
    expect(data.tokens.refreshToken).to.be.a('string').and.equal(refreshToken);
    expect(data.needsPasswordChange).to.equal(true);
    expect(data.needsEmailSetup).to.equal(true);
    expect((await me(app, accessToken!)).status).to.equal(200);
    const stored = await User.findByPk(fixture.user.id);
    expect(stored!.lastLogin).to.be.instanceOf(Date);
  });

  it('reports the onboarding as finished for a user with a password who skipped the mail step', async () => {
    const app = await authApp();
    const fixture = await onboardedUser();
    const { res } = await loginViaHttp(app, fixture.username, fixture.password, { ip: randomIp() });
    expect(res.status).to.equal(200);
    expect(res.body.data.needsPasswordChange).to.equal(false);
    expect(res.body.data.needsEmailSetup).to.equal(false);
  });

  it('matches the username regardless of case', async () => {
    const app = await authApp();
    const fixture = await onboardedUser();
    const { res } = await loginViaHttp(app, fixture.username.toUpperCase(), fixture.password, { ip: randomIp() });
    expect(res.status).to.equal(200);
    expect(res.body.data.user.id).to.equal(fixture.user.id);
  });

  it('gives the same 401 for an unknown user, a wrong password and a wrong temporary password', async () => {
    const app = await authApp();
    const fixture = await createUser({ temporary: true });
    const onboarded = await onboardedUser();
    const unknown = await loginViaHttp(app, uniqueName('ghost'), 'whatever-password', { ip: randomIp() });
    const wrongTemp = await loginViaHttp(app, fixture.username, `${fixture.temporaryPassword}x`, { ip: randomIp() });
    const wrongOwn = await loginViaHttp(app, onboarded.username, `${onboarded.password}x`, { ip: randomIp() });
    for (const { res } of [unknown, wrongTemp, wrongOwn]) {
      expectErrorEnvelope(res, 401, INVALID);
      expect(res.headers['set-cookie']).to.equal(undefined);
    }
    expect(unknown.res.body).to.deep.equal(wrongOwn.res.body);
  });

  it('rejects an expired temporary password with the same generic 401', async () => {
    const app = await authApp();
    const fixture = await createUser({ temporary: true });
    await User.update({ tempPasswordExpiresAt: new Date(Date.now() - 1000) }, { where: { id: fixture.user.id } });
    const { res } = await loginViaHttp(app, fixture.username, fixture.temporaryPassword, { ip: randomIp() });
    expectErrorEnvelope(res, 401, INVALID);
  });

  it('accepts only the own password once it is set (the temporary one no longer opens the account)', async () => {
    const app = await authApp();
    const fixture = await createUser({ temporary: true });
    // A temporary password still stored next to a set password must not be accepted.
    const kept = await User.findByPk(fixture.user.id);
    const { res: first } = await loginViaHttp(app, fixture.username, fixture.temporaryPassword, { ip: randomIp() });
    expect(first.status).to.equal(200);
    const password = 'Vlastné-heslo-123';
    const setRes = await request(app).post('/api/auth/set-password').set('Authorization', `Bearer ${first.body.data.tokens.accessToken}`).send({ newPassword: password });
    expect(setRes.status).to.equal(200);
    await User.update({ tempPassword: kept!.tempPassword, tempPasswordExpiresAt: new Date(Date.now() + 3600_000) }, { where: { id: fixture.user.id } });
    expectErrorEnvelope((await loginViaHttp(app, fixture.username, fixture.temporaryPassword, { ip: randomIp() })).res, 401, INVALID);
    expect((await loginViaHttp(app, fixture.username, password, { ip: randomIp() })).res.status).to.equal(200);
  });

  it('writes audit records: a failed attempt with its error, a successful attempt and a login, with IP and user agent', async () => {
    const app = await authApp();
    const fixture = await onboardedUser();
    const ip = randomIp();
    await loginViaHttp(app, fixture.username, 'wrong-password-1', { ip, userAgent: 'AuditAgent/1.0' });
    await loginViaHttp(app, fixture.username, fixture.password, { ip, userAgent: 'AuditAgent/1.0' });

    const attempts = await auditRows({ action: 'auth.login_attempt', username: fixture.username });
    expect(attempts.map((a) => a.success)).to.deep.equal([false, true]);
    for (const row of attempts) expect(row).to.include({ ip, userAgent: 'AuditAgent/1.0' });
    expect(attempts[0].details).to.include({ error: INVALID });
    const logins = await auditRows({ action: 'auth.login', userId: fixture.user.id });
    expect(logins).to.have.length(1);
    expect(logins[0]).to.include({ ip, userAgent: 'AuditAgent/1.0', username: fixture.username, success: true });
  });

  it('audits a failed attempt for a user that does not exist, under the name that was tried', async () => {
    const app = await authApp();
    const ghost = uniqueName('ghost');
    const ip = randomIp();
    await loginViaHttp(app, ghost, 'some-password', { ip, userAgent: 'Ghost/2' });
    const rows = await auditRows({ action: 'auth.login_attempt', username: ghost });
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ success: false, ip, userAgent: 'Ghost/2', userId: null });
  });

  it('audits a malformed login as a failed attempt too', async () => {
    const app = await authApp();
    const name = uniqueName('malformed');
    const ip = randomIp();
    const res = await request(app).post('/api/auth/login').set('X-Forwarded-For', ip).set('User-Agent', 'Bad/1').send({ username: name, password: 42 });
    expectErrorEnvelope(res, 400);
    const rows = await auditRows({ action: 'auth.login_attempt', username: name });
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ success: false, ip, userAgent: 'Bad/1' });
    expect((rows[0].details as { statusCode: number }).statusCode).to.equal(400);
  });

  it('marks responses carrying tokens as not cacheable', async () => {
    const app = await authApp();
    const fixture = await onboardedUser();
    const { res, accessToken } = await loginViaHttp(app, fixture.username, fixture.password, { ip: randomIp() });
    expect(res.headers['cache-control']).to.equal('no-store');
    expect((await me(app, accessToken!)).headers['cache-control']).to.equal('no-store');
  });

  describe('malformed bodies get a 400 envelope, never a 500', () => {
    const cases: Array<[string, unknown]> = [
      ['an empty object', {}],
      ['a missing password', { username: 'someone' }],
      ['a numeric password', { username: 'someone', password: 12345678901 }],
      ['a non-string username', { username: ['a'], password: 'x' }],
      ['a string rememberMe', { username: 'someone', password: 'whatever', rememberMe: 'yes' }],
      ['a huge password', { username: 'someone', password: 'x'.repeat(5000) }],
      ['a huge username', { username: 'u'.repeat(500), password: 'whatever' }],
      ['an array body', [{ username: 'someone', password: 'x' }]],
    ];
    for (const [name, body] of cases) {
      it(`rejects ${name}`, async () => {
        const app = await authApp();
        const res = await request(app)
          .post('/api/auth/login')
          .set('X-Forwarded-For', randomIp())
          .send(body as object);
        expectErrorEnvelope(res, 400);
      });
    }

    it('rejects malformed JSON, no-store, and audits it as a failed attempt (issue 34)', async () => {
      const app = await authApp();
      const ip = randomIp();
      const ua = `Broken/${uniqueName('json')}`;
      const res = await request(app).post('/api/auth/login').set('X-Forwarded-For', ip).set('User-Agent', ua).set('Content-Type', 'application/json').send('{"username": "a", ');
      expectErrorEnvelope(res, 400);
      expect(res.body.error.code).to.equal('invalid_json');
      expect(res.headers['cache-control']).to.equal('no-store');
      const rows = await AuditLog.findAll({ where: { action: 'auth.login_attempt', userAgent: ua } });
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ success: false, ip, userId: null });
      expect((rows[0].details as { statusCode: number }).statusCode).to.equal(400);
    });

    it('rejects a form-encoded or text body with 415 (not as missing fields)', async () => {
      const app = await authApp();
      for (const type of ['form', 'text/plain']) {
        const res = await request(app).post('/api/auth/login').type(type).send('username=a&password=b');
        expectErrorEnvelope(res, 415);
        expect(res.body.error.code).to.equal('unsupported_media_type');
      }
    });
  });

  describe('rememberMe (docs/contract.md §4.1: true/false, "true"/"false", 1/0; anything else 400)', () => {
    const accepted: Array<[unknown, boolean]> = [
      [true, true],
      ['true', true],
      [1, true],
      [false, false],
      ['false', false],
      [0, false],
    ];
    for (const [value, remembered] of accepted) {
      it(`accepts ${JSON.stringify(value)}: ${remembered ? 'sets' : 'clears'} the refresh cookie`, async () => {
        const app = await authApp();
        const fixture = await onboardedUser();
        const res = await request(app)
          .post('/api/auth/login')
          .set('X-Forwarded-For', randomIp())
          .send({ username: fixture.username, password: fixture.password, rememberMe: value });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const refresh = parseSetCookies(res).refreshToken;
        if (remembered) expect(refresh.value).to.equal(res.body.data.tokens.refreshToken);
        else expect(refresh.value).to.equal('');
      });
    }

    it('rejects every other value with 400 and a Slovak detail naming rememberMe', async () => {
      const app = await authApp();
      const fixture = await onboardedUser();
      for (const value of ['yes', 'TRUE', '1', '0', '', 2, -1, null, [], {}, 'on']) {
        const res = await request(app)
          .post('/api/auth/login')
          .set('X-Forwarded-For', randomIp())
          .send({ username: fixture.username, password: fixture.password, rememberMe: value });
        expectErrorEnvelope(res, 400);
        expect(res.body.error.details, JSON.stringify(value)).to.deep.equal([
          { field: 'rememberMe', message: 'rememberMe musí byť true alebo false (aj "true"/"false" alebo 1/0)' },
        ]);
      }
    });
  });

  it('rejects an unknown field with 400 naming it (a typo must not pass silently)', async () => {
    const app = await authApp();
    const fixture = await onboardedUser();
    const res = await request(app).post('/api/auth/login').set('X-Forwarded-For', randomIp()).send({ username: fixture.username, password: fixture.password, remember_me: true });
    expectErrorEnvelope(res, 400);
    expect(res.body.error.code).to.equal('validation_failed');
    expect(res.body.error.details).to.deep.equal([{ field: 'remember_me', message: 'Neznáme pole: remember_me' }]);
  });
});
