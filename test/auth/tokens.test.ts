import crypto from 'node:crypto';
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { baseTestEnv } from '../support/harness.js';
import { parseSetCookies } from '../support/login.js';
import { authApp, expectErrorEnvelope, loggedIn, me, onboardedUser } from './helpers.js';

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const decode = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;

/** Signs claims the way the service does, so each attack differs from a valid token in one respect only. */
function forge(claims: Record<string, unknown>, secret: string, audience: string) {
  return jwt.sign(claims, crypto.createSecretKey(Buffer.from(secret)), { algorithm: 'HS256', issuer: 'staff-crm', audience });
}

describe('token attacks: every one is a 401', () => {
  let accessSecret: string;
  let refreshSecret: string;
  before(() => {
    accessSecret = baseTestEnv().JWT_ACCESS_SECRET!;
    refreshSecret = baseTestEnv().JWT_REFRESH_SECRET!;
  });

  async function session() {
    const app = await authApp();
    const user = await onboardedUser();
    const login = await loggedIn(app, user.username, user.password);
    const claims = decode(login.accessToken);
    const accessClaims = { id: claims.id, username: claims.username, role: claims.role, sid: claims.sid, typ: 'access' };
    return { app, user, login, accessClaims };
  }

  it('a correctly forged control token is accepted (the attacks below differ from it in one respect)', async () => {
    const { app, accessClaims } = await session();
    expect((await me(app, forge({ ...accessClaims, exp: Math.floor(Date.now() / 1000) + 60 }, accessSecret, 'access'))).status).to.equal(200);
  });

  it('rejects alg "none"', async () => {
    const { app, accessClaims } = await session();
    const token = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...accessClaims, iss: 'staff-crm', aud: 'access', exp: Math.floor(Date.now() / 1000) + 60 })}.`;
    expectErrorEnvelope(await me(app, token), 401);
    expectErrorEnvelope(await request(app).get('/api/auth/me').set('Cookie', `accessToken=${token}`), 401);
  });

  it('rejects a tampered payload (role raised to admin) with the original signature', async () => {
    const { app, login } = await session();
    const [header, payload, signature] = login.accessToken.split('.');
    const raised = b64({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), role: 'admin' });
    expectErrorEnvelope(await me(app, `${header}.${raised}.${signature}`), 401);
  });

  it('rejects a tampered signature', async () => {
    const { app, login } = await session();
    const token = login.accessToken;
    const last = token.at(-2) === 'A' ? 'B' : 'A';
    expectErrorEnvelope(await me(app, `${token.slice(0, -2)}${last}${token.at(-1)}`), 401);
  });

  it('rejects an expired access token', async () => {
    const { app, accessClaims } = await session();
    const now = Math.floor(Date.now() / 1000);
    expectErrorEnvelope(await me(app, forge({ ...accessClaims, iat: now - 7200, exp: now - 3600 }, accessSecret, 'access')), 401);
  });

  // Security regression: jsonwebtoken treats a token without `exp` as valid forever.
  it('rejects an access token without exp, even signed with the real secret', async () => {
    const { app, accessClaims } = await session();
    const forever = forge(accessClaims, accessSecret, 'access');
    expect(decode(forever)).to.not.have.property('exp');
    expectErrorEnvelope(await me(app, forever), 401);
    expectErrorEnvelope(await request(app).get('/api/auth/me').set('Cookie', `accessToken=${forever}`), 401);
  });

  it('rejects a refresh token without exp, even signed with the real secret', async () => {
    const { app, login } = await session();
    const claims = decode(login.refreshToken);
    const forever = forge({ sid: claims.sid, typ: 'refresh', sub: claims.sub, jti: claims.jti }, refreshSecret, 'refresh');
    expectErrorEnvelope(await request(app).post('/api/auth/refresh').set('Cookie', `refreshToken=${forever}`), 401, 'Refresh token expiroval alebo je neplatný');
  });

  it('rejects a token signed with another secret', async () => {
    const { app, accessClaims } = await session();
    expectErrorEnvelope(await me(app, forge(accessClaims, 'another-secret-that-is-long-enough-0123456789', 'access')), 401);
  });

  it('rejects the refresh token where an access token is expected, in a header and in the cookie', async () => {
    const { app, login } = await session();
    expectErrorEnvelope(await me(app, login.refreshToken), 401);
    expectErrorEnvelope(await request(app).get('/api/auth/me').set('Cookie', `accessToken=${login.refreshToken}`), 401);
  });

  it('rejects access claims signed with the refresh secret, and refresh claims signed with the access secret', async () => {
    const { app, login, accessClaims } = await session();
    expectErrorEnvelope(await me(app, forge(accessClaims, refreshSecret, 'access')), 401);
    const refreshClaims = decode(login.refreshToken);
    const swapped = forge({ sid: refreshClaims.sid, typ: 'refresh', sub: refreshClaims.sub, jti: refreshClaims.jti }, accessSecret, 'refresh');
    const res = await request(app).post('/api/auth/refresh').set('Cookie', `refreshToken=${swapped}`);
    expectErrorEnvelope(res, 401, 'Refresh token expiroval alebo je neplatný');
  });

  it('rejects the access token where a refresh token is expected, and clears the cookies', async () => {
    const { app, login } = await session();
    const res = await request(app).post('/api/auth/refresh').set('Cookie', `refreshToken=${login.accessToken}`);
    expectErrorEnvelope(res, 401, 'Refresh token expiroval alebo je neplatný');
    expect(parseSetCookies(res).refreshToken.value).to.equal('');
  });

  it('rejects an expired refresh token', async () => {
    const { app, login } = await session();
    const claims = decode(login.refreshToken);
    const now = Math.floor(Date.now() / 1000);
    const expired = forge({ sid: claims.sid, typ: 'refresh', sub: claims.sub, jti: claims.jti, iat: now - 100, exp: now - 10 }, refreshSecret, 'refresh');
    expectErrorEnvelope(await request(app).post('/api/auth/refresh').set('Cookie', `refreshToken=${expired}`), 401, 'Refresh token expiroval alebo je neplatný');
    // Control: the same claims, not expired, are accepted.
    const fresh = forge({ sid: claims.sid, typ: 'refresh', sub: claims.sub, jti: claims.jti, exp: now + 60 }, refreshSecret, 'refresh');
    expect((await request(app).post('/api/auth/refresh').set('Cookie', `refreshToken=${fresh}`)).status).to.equal(200);
  });

  it('rejects garbage and missing credentials', async () => {
    const { app } = await session();
    for (const token of ['garbage', 'a.b.c', 'e30.e30.', `${'x'.repeat(4000)}.y.z`]) {
      expectErrorEnvelope(await me(app, token), 401);
    }
    expectErrorEnvelope(await request(app).get('/api/auth/me'), 401);
    expectErrorEnvelope(await request(app).get('/api/auth/me').set('Authorization', 'Basic dXNlcjpwYXNz'), 401);
  });
});
