import { expect } from 'chai';
import request from 'supertest';
import { loginViaHttp, parseSetCookies, randomIp } from '../support/login.js';
import { COOKIE_MODES, authApp, expectCleared, expectModeAttributes, onboardedUser } from './helpers.js';

/** Contract (docs/contract.md §5): every row of the cookie table, in every mode. */
describe('auth cookies (docs/contract.md §5)', () => {
  for (const mode of COOKIE_MODES) {
    describe(`NODE_ENV=${mode.name}: HttpOnly, ${mode.secure ? 'Secure' : 'not Secure'}, SameSite=${mode.sameSite}, path /`, () => {
      it('login with rememberMe sets accessToken (Max-Age 3600) and refreshToken (Max-Age 604800)', async () => {
        const app = await authApp(mode.overrides);
        const user = await onboardedUser();
        const { res } = await loginViaHttp(app, user.username, user.password, { rememberMe: true, ip: randomIp() });
        expect(res.status).to.equal(200);
        const cookies = parseSetCookies(res);
        expectModeAttributes(cookies[mode.access], mode);
        expect(cookies[mode.access].attributes['max-age']).to.equal('3600');
        expect(cookies[mode.access].value).to.equal(res.body.data.tokens.accessToken);
        expectModeAttributes(cookies[mode.refresh], mode);
        expect(cookies[mode.refresh].attributes['max-age']).to.equal('604800');
        expect(cookies[mode.refresh].value).to.equal(res.body.data.tokens.refreshToken);
      });

      it('login without rememberMe sets only the access cookie (a leftover refresh cookie is cleared)', async () => {
        const app = await authApp(mode.overrides);
        const user = await onboardedUser();
        for (const rememberMe of [false, undefined]) {
          const { res } = await loginViaHttp(app, user.username, user.password, { rememberMe, ip: randomIp() });
          expect(res.status).to.equal(200);
          const cookies = parseSetCookies(res);
          expectModeAttributes(cookies[mode.access], mode);
          expect(cookies[mode.access].attributes['max-age']).to.equal('3600');
          expect(cookies[mode.access].value).to.not.equal('');
          expectCleared(cookies[mode.refresh], mode);
          // The body still carries both tokens (contract: docs/contract.md §4.1 rule 1).
          expect(res.body.data.tokens.refreshToken).to.be.a('string').and.not.empty;
        }
      });

      it('refresh sets the access cookie again, and the rotated refresh cookie, with the same attributes', async () => {
        const app = await authApp(mode.overrides);
        const user = await onboardedUser();
        const { refreshToken } = await loginViaHttp(app, user.username, user.password, { rememberMe: true, ip: randomIp() });
        const res = await request(app).post('/api/auth/refresh').set('Cookie', `${mode.refresh}=${refreshToken}`);
        expect(res.status).to.equal(200);
        const cookies = parseSetCookies(res);
        expectModeAttributes(cookies[mode.access], mode);
        expect(cookies[mode.access].attributes['max-age']).to.equal('3600');
        expect(cookies[mode.access].value).to.equal(res.body.data.accessToken);
        expectModeAttributes(cookies[mode.refresh], mode);
        expect(cookies[mode.refresh].attributes['max-age']).to.equal('604800');
        expect(cookies[mode.refresh].value).to.not.equal(refreshToken);
      });

      it('logout clears both cookies with the same attributes', async () => {
        const app = await authApp(mode.overrides);
        const user = await onboardedUser();
        const { cookies: sent } = await loginViaHttp(app, user.username, user.password, { rememberMe: true, ip: randomIp() });
        const res = await request(app).post('/api/auth/logout').set('Cookie', sent);
        expect(res.status).to.equal(200);
        const cookies = parseSetCookies(res);
        expectCleared(cookies[mode.access], mode);
        expectCleared(cookies[mode.refresh], mode);
      });

      it('a failed refresh clears both cookies with the same attributes', async () => {
        const app = await authApp(mode.overrides);
        const res = await request(app)
          .post('/api/auth/refresh')
          .set('Cookie', [`${mode.refresh}=not-a-token`, `${mode.access}=whatever`]);
        expect(res.status).to.equal(401);
        const cookies = parseSetCookies(res);
        expectCleared(cookies[mode.access], mode);
        expectCleared(cookies[mode.refresh], mode);
      });
    });
  }

  it('the access token is accepted from the accessToken cookie as well as from Authorization: Bearer', async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const { accessToken } = await loginViaHttp(app, user.username, user.password, { ip: randomIp() });
    const viaCookie = await request(app).get('/api/auth/me').set('Cookie', `accessToken=${accessToken}`);
    const viaHeader = await request(app).get('/api/auth/me').set('Authorization', `Bearer ${accessToken}`);
    expect(viaCookie.status).to.equal(200);
    expect(viaHeader.status).to.equal(200);
    expect(viaCookie.body.data.user.id).to.equal(user.user.id);
  });
});
