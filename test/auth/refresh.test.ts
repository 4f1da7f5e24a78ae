import { expect } from 'chai';
import request from 'supertest';
import { Session, User } from '../../src/models/index.js';
import { parseSetCookies } from '../support/login.js';
import { authApp, auditRows, expectErrorEnvelope, loggedIn, me, onboardedUser } from './helpers.js';

const INVALID = 'Refresh token expiroval alebo je neplatný';

function refresh(app: Parameters<typeof request>[0], refreshToken?: string) {
  const req = request(app).post('/api/auth/refresh');
  return refreshToken === undefined ? req : req.set('Cookie', `refreshToken=${refreshToken}`);
}

/** Moves the last rotation of a session into the past, as if the grace period had run out. */
async function endGracePeriod(sessionId: string): Promise<void> {
  await Session.update({ rotatedAt: new Date(Date.now() - 60_000) }, { where: { id: sessionId } });
}

describe('POST /api/auth/refresh', () => {
  it('answers 401 "Refresh token nie je k dispozícii" without the cookie, even with the token in a header or body', async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const { refreshToken, accessToken } = await loggedIn(app, user.username, user.password);
    expectErrorEnvelope(await refresh(app), 401, 'Refresh token nie je k dispozícii');
    const viaHeader = await request(app).post('/api/auth/refresh').set('Authorization', `Bearer ${refreshToken}`).send({ refreshToken });
    expectErrorEnvelope(viaHeader, 401, 'Refresh token nie je k dispozícii');
    const accessOnly = await request(app).post('/api/auth/refresh').set('Cookie', `accessToken=${accessToken}`);
    expectErrorEnvelope(accessOnly, 401, 'Refresh token nie je k dispozícii');
    expect(accessOnly.body.error.code).to.equal('refresh_token_missing');
  });

  it('without the refresh cookie clears the access cookie too (both cookies cleared, docs/contract.md §5 rule 5)', async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const { accessToken } = await loggedIn(app, user.username, user.password, false);
    for (const cookie of [`accessToken=${accessToken}`, undefined]) {
      const req = request(app).post('/api/auth/refresh');
      const res = await (cookie ? req.set('Cookie', cookie) : req);
      expectErrorEnvelope(res, 401, 'Refresh token nie je k dispozícii');
      const set = parseSetCookies(res);
      expect(set.accessToken?.value, 'access cookie cleared').to.equal('');
      expect(set.refreshToken?.value, 'refresh cookie cleared').to.equal('');
      expect(res.headers['cache-control']).to.equal('no-store');
    }
  });

  it('issues a new access token carrying id, username and role, and rotates the refresh token', async () => {
    const app = await authApp();
    const user = await onboardedUser({ role: 'admin' });
    const { refreshToken } = await loggedIn(app, user.username, user.password);
    const res = await refresh(app, refreshToken);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ success: true, message: 'Token obnovený' });
    expect(Object.keys(res.body.data)).to.deep.equal(['accessToken', 'accessTokenExpiresAt', 'refreshToken', 'refreshTokenExpiresAt']);
    // The exp claims of the tokens, which the frontend cannot read from the HttpOnly cookies.
    const exp = (token: string) => new Date(JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).exp * 1000).toISOString();
    expect(res.body.data.accessTokenExpiresAt).to.equal(exp(res.body.data.accessToken));
    expect(new Date(res.body.data.refreshTokenExpiresAt).getTime()).to.be.greaterThan(new Date(res.body.data.accessTokenExpiresAt).getTime());
    const claims = JSON.parse(Buffer.from(res.body.data.accessToken.split('.')[1], 'base64url').toString());
    expect(claims).to.include({ id: user.user.id, username: user.username, role: 'admin' });
    const meRes = await me(app, res.body.data.accessToken);
    expect(meRes.status).to.equal(200);
    const rotated = parseSetCookies(res).refreshToken.value;
    expect(rotated).to.be.a('string').and.not.equal(refreshToken);
    // The body carries the rotated token too (issue 34), as login does: a client that stores tokens keeps working.
    expect(res.body.data.refreshToken).to.equal(rotated);
    // The rotated token works in turn.
    expect((await refresh(app, rotated)).status).to.equal(200);
  });

  it('still honours the previous token within the grace period (parallel tabs), without rotating again', async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const { refreshToken } = await loggedIn(app, user.username, user.password);
    const first = await refresh(app, refreshToken);
    expect(first.status).to.equal(200);
    const racing = await refresh(app, refreshToken);
    expect(racing.status).to.equal(200);
    expect((await me(app, racing.body.data.accessToken)).status).to.equal(200);
    expect(parseSetCookies(racing)).to.not.have.property('refreshToken');
    // The token the first tab received is still the live one.
    expect((await refresh(app, parseSetCookies(first).refreshToken.value)).status).to.equal(200);
  });

  it('treats a rotated-away token used after the grace period as theft: the whole family is revoked', async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const { refreshToken, accessToken, res: loginRes } = await loggedIn(app, user.username, user.password);
    const sessionId = JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString()).sid as string;
    const first = await refresh(app, refreshToken);
    const newRefresh = parseSetCookies(first).refreshToken.value;
    const newAccess = first.body.data.accessToken as string;
    await endGracePeriod(sessionId);

    const replay = await refresh(app, refreshToken);
    expectErrorEnvelope(replay, 401, INVALID);
    expect(parseSetCookies(replay).refreshToken.value).to.equal('');
    // The legitimate holder's new tokens die with the family.
    expectErrorEnvelope(await refresh(app, newRefresh), 401, INVALID);
    expect((await me(app, newAccess)).status).to.equal(401);
    expect((await me(app, loginRes.body.data.tokens.accessToken)).status).to.equal(401);
    const session = await Session.findByPk(sessionId);
    expect(session!.revokedReason).to.equal('refresh_token_reuse');
    const audit = await auditRows({ action: 'auth.refresh_reuse', userId: user.user.id });
    expect(audit).to.have.length(1);
    expect(audit[0].success).to.equal(false);
  });

  it('answers 401 and clears cookies for a garbage token, a revoked session and a deleted user', async () => {
    const app = await authApp();
    expectErrorEnvelope(await refresh(app, 'garbage'), 401, INVALID);

    const revoked = await onboardedUser();
    const a = await loggedIn(app, revoked.username, revoked.password);
    expect((await request(app).post('/api/auth/logout').set('Authorization', `Bearer ${a.accessToken}`)).status).to.equal(200);
    const afterLogout = await refresh(app, a.refreshToken);
    expectErrorEnvelope(afterLogout, 401, INVALID);
    expect(parseSetCookies(afterLogout).accessToken.value).to.equal('');

    const deleted = await onboardedUser();
    const b = await loggedIn(app, deleted.username, deleted.password);
    await User.destroy({ where: { id: deleted.user.id } });
    expectErrorEnvelope(await refresh(app, b.refreshToken), 401, INVALID);
  });

  it('a session without rememberMe gets no refresh cookie from a refresh, only the rotated token in the body (issue 34)', async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const { refreshToken, res: login } = await loggedIn(app, user.username, user.password, false);
    expect(parseSetCookies(login).refreshToken?.value ?? '', 'login sets no refresh cookie').to.equal('');
    const res = await refresh(app, refreshToken);
    expect(res.status).to.equal(200);
    expect(parseSetCookies(res)).to.not.have.property('refreshToken');
    expect(res.body.data.refreshToken).to.be.a('string').and.not.equal(refreshToken);
    expect((await refresh(app, res.body.data.refreshToken)).status).to.equal(200);
  });
});
