import bcrypt from 'bcrypt';
import { expect } from 'chai';
import request from 'supertest';
import { Session, User } from '../../src/models/index.js';
import { PasswordHasher } from '../../src/users/password-hasher.js';
import { testContext } from '../support/harness.js';
import { loginViaHttp, randomIp } from '../support/login.js';
import { authApp, onboardedUser, strongPassword } from '../auth/helpers.js';

function jwtClaims(token: string): { iat: number; exp: number } {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { iat: number; exp: number };
}

describe('attack: login side channels and token lifetimes (issue 13)', function () {
  this.timeout(60_000);

  describe('timing enumeration when bcrypt costs differ', () => {
    it('a successful login re-hashes a password stored at another cost than BCRYPT_ROUNDS', async () => {
      const ctx = await testContext({ TRUST_PROXY: '1' });
      const app = await authApp();
      const user = await onboardedUser();
      // Stored at cost 5 (e.g. before BCRYPT_ROUNDS was changed); the tests run with BCRYPT_ROUNDS=4.
      await User.update({ password: await new PasswordHasher(5).hash(user.password) }, { where: { id: user.user.id } });
      const { res } = await loginViaHttp(app, user.username, user.password, { ip: randomIp() });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const stored = (await User.findByPk(user.user.id))!;
      expect(bcrypt.getRounds(stored.password!)).to.equal(ctx.config.bcryptRounds);
      expect(await ctx.services.hasher.verify(user.password, stored.password)).to.equal(true);
    });

    it('a temporary password stored at another cost is re-hashed too, and still works once', async () => {
      const ctx = await testContext({ TRUST_PROXY: '1' });
      const app = await authApp();
      const user = await onboardedUser();
      const temporary = strongPassword();
      await User.update(
        { changedPassword: false, tempPassword: await new PasswordHasher(5).hash(temporary), tempPasswordExpiresAt: new Date(Date.now() + 3_600_000) },
        { where: { id: user.user.id } },
      );
      expect((await loginViaHttp(app, user.username, temporary, { ip: randomIp() })).res.status).to.equal(200);
      const stored = (await User.findByPk(user.user.id))!;
      expect(bcrypt.getRounds(stored.tempPassword!)).to.equal(ctx.config.bcryptRounds);
      expect((await loginViaHttp(app, user.username, temporary, { ip: randomIp() })).res.status).to.equal(200);
    });

    it('the hash compared against for unknown users has the configured cost', async () => {
      for (const rounds of [4, 6]) {
        const hasher = new PasswordHasher(rounds);
        expect(bcrypt.getRounds(await hasher.unknownUserHash())).to.equal(rounds);
      }
    });
  });

  describe('rememberMe: false', () => {
    it('returns no refresh token that outlives the access token', async () => {
      const app = await authApp();
      const user = await onboardedUser();
      const login = await loginViaHttp(app, user.username, user.password, { rememberMe: false, ip: randomIp() });
      expect(login.res.status).to.equal(200);
      const access = jwtClaims(login.accessToken!);
      const refresh = jwtClaims(login.refreshToken!);
      expect(refresh.exp, 'refresh token exp').to.be.at.most(access.exp);
      const session = (await Session.findOne({ where: { userId: user.user.id }, order: [['createdAt', 'DESC']] }))!;
      expect(session.expiresAt.getTime(), 'session end').to.be.at.most(access.exp * 1000);

      // Presented anyway (a client that stores the body's token as a cookie): the rotated token comes in
      // the body only (no 7-day cookie for a session without rememberMe), and it is capped too.
      const rotated = await request(app).post('/api/auth/refresh').set('Cookie', `refreshToken=${login.refreshToken}`);
      expect(rotated.status).to.equal(200);
      const cookies = (rotated.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
      expect(cookies.filter((c) => c.startsWith('refreshToken='))).to.deep.equal([]);
      const body = rotated.body as { data: { refreshToken: string } };
      const next = jwtClaims(body.data.refreshToken);
      expect(next.exp).to.be.at.most(access.exp);
    });

    it('rememberMe: true keeps the 7-day refresh token', async () => {
      const app = await authApp();
      const user = await onboardedUser();
      const login = await loginViaHttp(app, user.username, user.password, { rememberMe: true, ip: randomIp() });
      const refresh = jwtClaims(login.refreshToken!);
      expect(refresh.exp - refresh.iat).to.equal(7 * 24 * 3600);
    });
  });
});
