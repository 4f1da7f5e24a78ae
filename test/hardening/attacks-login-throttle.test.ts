import { expect } from 'chai';
import type { Express, Request, Response } from 'express';
import { ProxyHeaderCheck } from '../../src/app/proxy-check.js';
import type { Logger } from '../../src/logging/logger.js';
import request from 'supertest';
import { LOGIN_LIMITS } from '../../src/auth/login-throttle.js';
import { AuditLog } from '../../src/models/index.js';
import { uniqueName } from '../support/factories.js';
import { testApp } from '../support/harness.js';
import { loginViaHttp, parseSetCookies, randomIp } from '../support/login.js';
import { authApp, onboardedUser } from '../auth/helpers.js';

/** The cookie that marks a browser where the user has logged in before (OWASP "device cookies"). */
const DEVICE_COOKIE = 'knownDevice';

function login(app: Express, ip: string, body: unknown, cookie?: string) {
  const req = request(app).post('/api/auth/login').set('X-Forwarded-For', ip).set('User-Agent', 'attack-tests');
  return (cookie ? req.set('Cookie', cookie) : req).send(body as object);
}

/** A random IPv6 /64 of the documentation range, and an address in it. */
function randomPrefix64(): string {
  const hex = () => Math.floor(Math.random() * 0xffff).toString(16);
  return `2001:db8:${hex()}:${hex()}`;
}

describe('attack: login throttling behind proxies and NAT (issue 13)', function () {
  this.timeout(120_000);

  it('IPv6: rotating addresses inside one /64 does not reset the limits', async () => {
    const app = await authApp();
    const user = await onboardedUser();
    const prefix = randomPrefix64();
    const statuses: number[] = [];
    for (let i = 1; i <= LOGIN_LIMITS.perUsernameAndIp.points + 1; i++) {
      statuses.push((await login(app, `${prefix}::${i.toString(16)}`, { username: user.username, password: `guess-${i}-xxxx` })).status);
    }
    expect(statuses.at(-1), statuses.join(',')).to.equal(429);
    // Another /64 is another client.
    expect((await login(app, `${randomPrefix64()}::1`, { username: user.username, password: user.password })).status).to.equal(200);
  });

  describe('everyone behind one address (a proxy with TRUST_PROXY unset, an office NAT)', () => {
    it("an attacker's wrong guesses do not lock out the user on a browser they logged in from before", async () => {
      const app = await authApp();
      const shared = randomIp();
      const user = await onboardedUser();
      const first = await loginViaHttp(app, user.username, user.password, { ip: shared });
      expect(first.res.status).to.equal(200);
      const device = parseSetCookies(first.res)[DEVICE_COOKIE];
      expect(device, 'no known-device cookie on login').to.not.equal(undefined);
      expect(device.attributes.httponly).to.equal(true);

      for (let i = 0; i < LOGIN_LIMITS.perUsernameAndIp.points + 2; i++) await login(app, shared, { username: user.username, password: `guess-${i}-xxxx` });
      expect((await login(app, shared, { username: user.username, password: user.password })).status, 'the attacker (no cookie) is throttled').to.equal(429);

      const res = await login(app, shared, { username: user.username, password: user.password }, `${DEVICE_COOKIE}=${device.value}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    });

    it('a spray of wrong logins from the shared address does not lock out users on their known browsers', async () => {
      const app = await authApp();
      const shared = randomIp();
      const user = await onboardedUser();
      const device = parseSetCookies((await loginViaHttp(app, user.username, user.password, { ip: shared })).res)[DEVICE_COOKIE];
      for (let i = 0; i < LOGIN_LIMITS.perIp.points + 1; i++) await login(app, shared, { username: uniqueName('spray'), password: 'Password1!x' });
      expect((await login(app, shared, { username: user.username, password: user.password })).status).to.equal(429);
      const res = await login(app, shared, { username: user.username, password: user.password }, `${DEVICE_COOKIE}=${device?.value}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    });

    it('a known-device cookie of one user is worth nothing for another username', async () => {
      const app = await authApp();
      const shared = randomIp();
      const attacker = await onboardedUser();
      const victim = await onboardedUser();
      const own = parseSetCookies((await loginViaHttp(app, attacker.username, attacker.password, { ip: shared })).res)[DEVICE_COOKIE];
      const cookie = `${DEVICE_COOKIE}=${own?.value}`;
      const statuses: number[] = [];
      for (let i = 0; i < LOGIN_LIMITS.perUsernameAndIp.points + 1; i++) {
        statuses.push((await login(app, shared, { username: victim.username, password: `guess-${i}-xxxx` }, cookie)).status);
      }
      expect(statuses.at(-1), statuses.join(',')).to.equal(429);
    });
  });

  it('with TRUST_PROXY=0, requests carrying forwarding headers make /api/health/ready say so', async () => {
    // A settings key of its own: the warning is per app instance and must not leak into other suites.
    const app = await testApp({ TRUST_PROXY: '0', LOG_LEVEL: 'error' });
    await request(app).get('/api/health').set('X-Forwarded-For', '203.0.113.7');
    const ready = await request(app).get('/api/health/ready');
    expect(ready.status).to.equal(200);
    expect(JSON.stringify(ready.body.data.warnings ?? [])).to.match(/TRUST_PROXY/);
    // Trusting the proxy: no warning.
    const trusting = await testApp({ TRUST_PROXY: '1', LOG_LEVEL: 'error' });
    await request(trusting).get('/api/health').set('X-Forwarded-For', '203.0.113.7');
    expect((await request(trusting).get('/api/health/ready')).body.data.warnings ?? []).to.deep.equal([]);
  });

  it('warns once in the log, not per request', () => {
    const warned: unknown[] = [];
    const logger = { warn: (...args: unknown[]) => warned.push(args) } as unknown as Logger;
    const check = new ProxyHeaderCheck(0, logger);
    const req = (headers: Record<string, string>) => ({ headers, socket: { remoteAddress: '127.0.0.1' } }) as unknown as Request;
    let passed = 0;
    check.middleware(req({}), {} as Response, () => passed++);
    expect(check.warnings()).to.deep.equal([]);
    for (const headers of [{ 'x-forwarded-for': '203.0.113.7' }, { forwarded: 'for=203.0.113.8' }, { 'x-real-ip': '203.0.113.9' }] as Array<Record<string, string>>) {
      check.middleware(req(headers), {} as Response, () => passed++);
    }
    expect(passed).to.equal(4);
    expect(warned).to.have.length(1);
    expect(check.warnings()).to.have.length(1);
    const trusting = new ProxyHeaderCheck(1, logger);
    trusting.middleware(req({ 'x-forwarded-for': '203.0.113.7' }), {} as Response, () => passed++);
    expect(warned).to.have.length(1);
  });

  describe('audit flooding', () => {
    async function rowsFrom(ip: string) {
      return AuditLog.findAll({ where: { action: 'auth.login_attempt', ip }, order: [['id', 'ASC']] });
    }

    it('invalid login bodies are limited before validation and auditing; throttled ones make one counted row', async () => {
      const app = await authApp();
      const ip = randomIp();
      const total = 200;
      const statuses: number[] = [];
      for (let i = 0; i < total; i++) statuses.push((await login(app, ip, { username: 42, password: [] })).status);
      expect(statuses.filter((s) => s === 400)).to.have.length(LOGIN_LIMITS.perIp.points);
      expect(statuses.filter((s) => s === 429)).to.have.length(total - LOGIN_LIMITS.perIp.points);
      const rows = await rowsFrom(ip);
      expect(rows.length, 'audit rows').to.be.at.most(LOGIN_LIMITS.perIp.points + 1);
      const counted = rows.filter((r) => (r.details as { statusCode?: number }).statusCode === 429);
      expect(counted).to.have.length(1);
      expect((counted[0].details as { count: number }).count).to.equal(total - LOGIN_LIMITS.perIp.points);
    });

    it('repeated throttled guesses at one account are one counted row, not one row each', async () => {
      const app = await authApp();
      const ip = randomIp();
      const user = await onboardedUser();
      const total = 40;
      for (let i = 0; i < total; i++) await login(app, ip, { username: user.username, password: `guess-${i}-xxxx` });
      const rows = await rowsFrom(ip);
      const failed = rows.filter((r) => (r.details as { statusCode?: number }).statusCode === 401);
      const counted = rows.filter((r) => (r.details as { statusCode?: number }).statusCode === 429);
      expect(failed).to.have.length(LOGIN_LIMITS.perUsernameAndIp.points);
      expect(counted).to.have.length(1);
      expect(counted[0]).to.include({ username: user.username, success: false });
      expect((counted[0].details as { count: number }).count).to.equal(total - LOGIN_LIMITS.perUsernameAndIp.points);
    });
  });
});
