import crypto from 'node:crypto';
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { AuditLog } from '../../src/models/index.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp } from '../support/harness.js';
import { loginViaHttp, randomIp, type HttpLogin, type ParsedCookie } from '../support/login.js';

/** Apps of the auth tests trust one proxy hop, so each test can log in from an IP of its own. */
export function authApp(overrides: Record<string, string> = {}): Promise<Express> {
  return testApp({ TRUST_PROXY: '1', ...overrides });
}

/** A password that passes the policy and is unique per call. */
export function strongPassword(): string {
  return `Kôň-${crypto.randomBytes(6).toString('base64url')}-9`;
}

export async function onboardedUser(options: { role?: 'admin' | 'member' } = {}): Promise<UserFixture & { password: string }> {
  const password = strongPassword();
  const fixture = await createUser({ role: options.role, password, emailSetupSkipped: true });
  return { ...fixture, password };
}

/** Logs in from a fresh IP and checks that it worked. */
export async function loggedIn(
  app: Express,
  username: string,
  password: string,
  rememberMe = true,
): Promise<HttpLogin & { ip: string; accessToken: string; refreshToken: string }> {
  const ip = randomIp();
  const login = await loginViaHttp(app, username, password, { rememberMe, ip });
  expect(login.res.status, JSON.stringify(login.res.body)).to.equal(200);
  return { ...login, accessToken: login.accessToken!, refreshToken: login.refreshToken!, ip };
}

export function me(app: Express, accessToken: string) {
  return request(app).get('/api/auth/me').set('Authorization', `Bearer ${accessToken}`);
}

export function auditRows(where: { action: string; username?: string; userId?: string }) {
  return AuditLog.findAll({ where, order: [['id', 'ASC']] });
}

export function expectErrorEnvelope(res: request.Response, status: number, message?: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.headers['content-type']).to.match(/application\/json/);
  expect(res.body.success).to.equal(false);
  expect(res.body.error.statusCode).to.equal(status);
  expect(res.body.error.message).to.be.a('string').and.not.empty;
  if (message !== undefined) expect(res.body.error.message).to.equal(message);
}

export interface CookieMode {
  name: string;
  overrides: Record<string, string>;
  secure: boolean;
  sameSite: 'Strict' | 'Lax';
  /** The cookie names: `__Host-` prefixed in production (cookie tossing), the plain names otherwise. */
  access: string;
  refresh: string;
}

export const COOKIE_MODES: CookieMode[] = [
  { name: 'production', overrides: { NODE_ENV: 'production' }, secure: true, sameSite: 'Strict', access: '__Host-accessToken', refresh: '__Host-refreshToken' },
  { name: 'test (non-production)', overrides: {}, secure: false, sameSite: 'Lax', access: 'accessToken', refresh: 'refreshToken' },
  { name: 'development', overrides: { NODE_ENV: 'development' }, secure: false, sameSite: 'Lax', access: 'accessToken', refresh: 'refreshToken' },
];

/** The attributes every auth cookie carries in a mode (docs/contract.md §5), set or cleared. */
export function expectModeAttributes(cookie: ParsedCookie | undefined, mode: CookieMode): asserts cookie is ParsedCookie {
  expect(cookie, 'cookie missing').to.not.equal(undefined);
  expect(cookie!.attributes.httponly).to.equal(true);
  expect(cookie!.attributes.path).to.equal('/');
  // __Host- cookies must not carry a Domain; none of ours ever does.
  expect(cookie!.attributes).to.not.have.property('domain');
  expect(String(cookie!.attributes.samesite)).to.equal(mode.sameSite);
  if (mode.secure) expect(cookie!.attributes.secure).to.equal(true);
  else expect(cookie!.attributes).to.not.have.property('secure');
}

export function expectCleared(cookie: ParsedCookie | undefined, mode: CookieMode): void {
  expectModeAttributes(cookie, mode);
  expect(cookie.value).to.equal('');
  expect(new Date(String(cookie.attributes.expires)).getTime()).to.be.lessThan(Date.now());
}
