import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { User } from '../../src/models/index.js';
import { createUser } from '../support/factories.js';
import { loginViaHttp, randomIp } from '../support/login.js';
import { authApp, auditRows, expectErrorEnvelope, loggedIn, me, onboardedUser, strongPassword } from './helpers.js';

function setPassword(app: Express, accessToken: string, body: unknown, userAgent = 'crm-tests', ip = randomIp()) {
  return request(app)
    .post('/api/auth/set-password')
    .set('Authorization', `Bearer ${accessToken}`)
    .set('User-Agent', userAgent)
    .set('X-Forwarded-For', ip)
    .send(body as object);
}

async function newcomer(app: Express) {
  const fixture = await createUser({ temporary: true });
  const login = await loggedIn(app, fixture.username, fixture.temporaryPassword);
  return { fixture, login, accessToken: login.accessToken };
}

describe('POST /api/auth/set-password', () => {
  it('during onboarding takes newPassword alone and answers the user and both onboarding flags', async () => {
    const app = await authApp();
    const { fixture, accessToken, login } = await newcomer(app);
    const password = strongPassword();
    const res = await setPassword(app, accessToken, { newPassword: password }, 'SetPw/1', login.ip);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.message).to.equal('Heslo úspešne nastavené');
    expect(res.body.data.user).to.include({ id: fixture.user.id, changedPassword: true });
    expect(res.body.data).to.include({ needsPasswordChange: false, needsEmailSetup: true });
    const stored = await User.findByPk(fixture.user.id);
    expect(stored!.changedPassword).to.equal(true);
    expect(stored!.tempPassword).to.equal(null);
    expect(stored!.password).to.match(/^\$2[aby]\$/);
    const audit = await auditRows({ action: 'auth.password_change', userId: fixture.user.id });
    expect(audit).to.have.length(1);
    expect(audit[0]).to.include({ success: true, ip: login.ip, userAgent: 'SetPw/1' });
  });

  describe('password policy (400 with a Slovak message)', () => {
    const cases: Array<[string, (username: string, temp: string) => string, string]> = [
      ['9 characters', () => 'Abcdef9!x', 'Heslo musí mať aspoň 10 znakov'],
      ['129 characters', () => 'Ab9!'.repeat(32) + 'x', 'Heslo môže mať najviac 128 znakov'],
      ['the username', (username) => username, 'Heslo nesmie byť rovnaké ako používateľské meno'],
      ['the username in capitals', (username) => username.toUpperCase(), 'Heslo nesmie byť rovnaké ako používateľské meno'],
      ['a common password', () => 'password123', 'Heslo je príliš bežné, zvoľte si iné'],
      ['a common password in other case', () => 'Qwertyuiop', 'Heslo je príliš bežné, zvoľte si iné'],
      // Issue 52, finding 19: Slovak and Czech common passwords (src/auth/common-passwords-sk-cz.ts).
      ['a common Slovak password', () => 'heslo12345', 'Heslo je príliš bežné, zvoľte si iné'],
      ['a common Slovak password with capitals, diacritics and punctuation', () => '2026Bratislava!!', 'Heslo je príliš bežné, zvoľte si iné'],
      ['a common Czech password', () => 'Miluji1234567', 'Heslo je príliš bežné, zvoľte si iné'],
      ['the temporary password', (_u, temp) => temp, 'Nové heslo nesmie byť rovnaké ako dočasné heslo'],
    ];
    for (const [name, make, message] of cases) {
      it(`refuses ${name}`, async () => {
        const app = await authApp();
        const { fixture, accessToken } = await newcomer(app);
        expect(fixture.username.length).to.be.at.least(10);
        const res = await setPassword(app, accessToken, { newPassword: make(fixture.username, fixture.temporaryPassword) });
        expectErrorEnvelope(res, 400, message);
        expect(res.body.error.details).to.deep.equal([{ field: 'newPassword', message }]);
        expect((await User.findByPk(fixture.user.id))!.changedPassword).to.equal(false);
      });
    }

    it('accepts exactly 10 and exactly 128 characters (counted as characters, not bytes)', async () => {
      const app = await authApp();
      const ten = 'ľščťžýáíé1';
      expect([...ten]).to.have.length(10);
      expect((await setPassword(app, (await newcomer(app)).accessToken, { newPassword: ten })).status).to.equal(200);
      const long = ('Žltý kôň ' + 'x'.repeat(119)).slice(0, 128);
      expect([...long]).to.have.length(128);
      expect((await setPassword(app, (await newcomer(app)).accessToken, { newPassword: long })).status).to.equal(200);
    });
  });

  it('never truncates: a password longer than 72 bytes logs in only exactly, not by its first 72 bytes', async () => {
    const app = await authApp();
    const { fixture, accessToken } = await newcomer(app);
    const prefix = 'A-long-passphrase-that-goes-on-and-on-beyond-the-bcrypt-limit-of-72-bytes';
    expect(Buffer.byteLength(prefix)).to.be.greaterThan(72);
    const password = `${prefix}-tail-one`;
    expect((await setPassword(app, accessToken, { newPassword: password })).status).to.equal(200);
    expect((await loginViaHttp(app, fixture.username, password, { ip: randomIp() })).res.status).to.equal(200);
    expectErrorEnvelope((await loginViaHttp(app, fixture.username, `${prefix}-tail-two`, { ip: randomIp() })).res, 401);
    expectErrorEnvelope((await loginViaHttp(app, fixture.username, prefix.slice(0, 72), { ip: randomIp() })).res, 401);
  });

  it('once a password is set requires currentPassword: missing or wrong is a 400, right one changes it', async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const { accessToken } = await loggedIn(app, user.username, user.password);
    const next = strongPassword();
    expectErrorEnvelope(await setPassword(app, accessToken, { newPassword: next }), 400, 'Zadajte aktuálne heslo');
    expectErrorEnvelope(await setPassword(app, accessToken, { newPassword: next, currentPassword: 'not-my-password' }), 400, 'Aktuálne heslo je nesprávne');
    expectErrorEnvelope(await setPassword(app, accessToken, { newPassword: user.password, currentPassword: user.password }), 400, 'Nové heslo sa musí líšiť od aktuálneho hesla');
    const failed = await auditRows({ action: 'auth.password_change', userId: user.user.id });
    expect(failed.map((r) => r.success)).to.deep.equal([false]);

    const ok = await setPassword(app, accessToken, { newPassword: next, currentPassword: user.password });
    expect(ok.status).to.equal(200);
    expectErrorEnvelope((await loginViaHttp(app, user.username, user.password, { ip: randomIp() })).res, 401);
    expect((await loginViaHttp(app, user.username, next, { ip: randomIp() })).res.status).to.equal(200);
  });

  it("revokes the user's other sessions and keeps the caller's", async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const mine = await loggedIn(app, user.username, user.password);
    const other = await loggedIn(app, user.username, user.password);
    const stranger = await onboardedUser();
    const strangers = await loggedIn(app, stranger.username, stranger.password);
    const res = await setPassword(app, mine.accessToken, { newPassword: strongPassword(), currentPassword: user.password });
    expect(res.status).to.equal(200);
    expect((await me(app, mine.accessToken)).status).to.equal(200);
    expect((await request(app).post('/api/auth/refresh').set('Cookie', `refreshToken=${mine.refreshToken}`)).status).to.equal(200);
    expect((await me(app, other.accessToken)).status).to.equal(401);
    expect((await request(app).post('/api/auth/refresh').set('Cookie', `refreshToken=${other.refreshToken}`)).status).to.equal(401);
    expect((await me(app, strangers.accessToken)).status).to.equal(200);
  });

  it('rejects malformed bodies with 400 and unauthenticated calls with 401', async () => {
    const app = await authApp();
    const { accessToken } = await newcomer(app);
    for (const body of [{}, { newPassword: 1234567890123 }, { newPassword: null }, { newPassword: 'x'.repeat(2000) }, { newPassword: strongPassword(), currentPassword: 5 }]) {
      expectErrorEnvelope(await setPassword(app, accessToken, body), 400);
    }
    expectErrorEnvelope(await request(app).post('/api/auth/set-password').send({ newPassword: strongPassword() }), 401);
  });
});
