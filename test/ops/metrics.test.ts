import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import { expect } from 'chai';
import { register as globalRegistry } from 'prom-client';
import request from 'supertest';
import { AppConfig, ConfigError } from '../../src/config/config.js';
import { releaseVersion } from '../../src/shared/release-version.js';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { baseTestEnv, testApp, testContext } from '../support/harness.js';
import { until } from '../support/poll.js';

/** The value of one series in Prometheus text output, 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const labelPart = line.slice(name.length + 1, line.lastIndexOf('}'));
    const have = labelPart.split(',');
    if (wanted.every((w) => have.includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

/** The sum of every series of `name` whose labels include `labels` (all routes, say). */
function total(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const have = line.slice(name.length + 1, line.lastIndexOf('}')).split(',');
    if (wanted.every((w) => have.includes(w))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

async function scrape(overrides: Record<string, string> = {}, path = '/api/metrics'): Promise<string> {
  const res = await request(await testApp(overrides)).get(path);
  expect(res.status, res.text).to.equal(200);
  return res.text;
}

describe('metrics endpoint (Prometheus)', () => {
  it('serves the Prometheus text format with default process metrics to a loopback client', async () => {
    const res = await request(await testApp()).get('/api/metrics');
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.match(/^text\/plain; version=0\.0\.4/);
    expect(res.headers['cache-control']).to.equal('no-store');
    expect(res.text).to.match(/^process_cpu_user_seconds_total \d/m);
    expect(res.text).to.match(/^nodejs_eventloop_lag_seconds /m);
    expect(res.text).to.contain('# TYPE crm_http_request_duration_seconds histogram');
    expect(res.text).to.contain('# TYPE crm_sync_runs_total counter');
  });

  it('labels requests by route pattern, never by the ids in the URL', async () => {
    const member = await sessionFor(await createUser());
    const app = await testApp();
    const id = crypto.randomUUID();
    const labels = { method: 'GET', route: '/api/timesheets/:id/download', status: '404' };
    const before = sample(await scrape(), 'crm_http_requests_total', labels);
    const res = await request(app).get(`/api/timesheets/${id}/download`).set('Authorization', member.bearer);
    expect(res.status).to.equal(404);
    const text = await scrape();
    expect(sample(text, 'crm_http_requests_total', labels)).to.equal(before + 1);
    expect(sample(text, 'crm_http_request_duration_seconds_count', labels)).to.be.greaterThan(before);
    expect(text).not.to.contain(id);
  });

  it('keeps the full pattern when the handler throws (the error unwinds the router mount path)', async () => {
    const labels = { method: 'POST', route: '/api/auth/login', status: '400' };
    const before = sample(await scrape(), 'crm_http_requests_total', labels);
    const res = await request(await testApp())
      .post('/api/auth/login')
      .send({ username: 42 });
    expect(res.status).to.equal(400);
    expect(sample(await scrape(), 'crm_http_requests_total', labels)).to.equal(before + 1);
  });

  it('puts requests that matched no route under one label', async () => {
    const junk = `/api/no-such-thing/${crypto.randomUUID()}`;
    const labels = { method: 'GET', route: '(unmatched)', status: '404' };
    const before = sample(await scrape(), 'crm_http_requests_total', labels);
    expect((await request(await testApp()).get(junk)).status).to.equal(404);
    const text = await scrape();
    expect(sample(text, 'crm_http_requests_total', labels)).to.equal(before + 1);
    expect(text).not.to.contain('no-such-thing');
  });

  it('labels a path with a malformed percent-escape without throwing (regression: the label lookup crashed the process)', async () => {
    const app = await testApp();
    const path = '/api/admin/users/%/reset-password';
    const counted = async (status: number) => {
      const text = await scrape();
      return { any: total(text, 'crm_http_requests_total', { method: 'POST', status: String(status) }), text };
    };
    const probe = await request(app).post(path);
    const before = (await counted(probe.status)).any;
    // An exception in the 'close' handler (where the label is looked up) would leave the request uncounted.
    const res = await request(app).post(path);
    expect(res.status).to.equal(probe.status).and.to.be.within(400, 404);
    const after = await until(async () => ((await counted(res.status)).any >= before + 1 ? await counted(res.status) : undefined), { what: 'the request counted' });
    expect(after.any).to.equal(before + 1);
    expect(after.text).not.to.contain('%/reset-password');
  });

  it('attributes requests refused before routing to the route they were meant for (400 bad JSON, 413, 401)', async () => {
    const app = await testApp();
    const cases: Array<{ labels: Record<string, string>; send: () => Promise<{ status: number }> }> = [
      {
        labels: { method: 'POST', route: '/api/auth/login', status: '400' },
        send: () => request(app).post('/api/auth/login').set('Content-Type', 'application/json').send('{"username": '),
      },
      {
        labels: { method: 'POST', route: '/api/auth/login', status: '413' },
        send: () =>
          request(app)
            .post('/api/auth/login')
            .set('Content-Type', 'application/json')
            .send(JSON.stringify({ username: 'x'.repeat(200_000) })),
      },
      { labels: { method: 'GET', route: '/api/timesheets/all', status: '401' }, send: () => request(app).get('/api/timesheets/all') },
      {
        labels: { method: 'GET', route: '/api/timesheets/:id/download', status: '401' },
        send: () => request(app).get(`/api/timesheets/${crypto.randomUUID()}/download`),
      },
    ];
    for (const c of cases) {
      const before = sample(await scrape(), 'crm_http_requests_total', c.labels);
      expect((await c.send()).status, JSON.stringify(c.labels)).to.equal(Number(c.labels.status));
      expect(sample(await scrape(), 'crm_http_requests_total', c.labels), JSON.stringify(c.labels)).to.equal(before + 1);
    }
  });

  it('has samples for every sync result and reason from the start, and crm_build_info', async () => {
    const text = await scrape({ METRICS_PATH: '/fresh-metrics' }, '/fresh-metrics');
    for (const result of ['ok', 'error', 'auth_failed', 'skipped']) expect(text).to.match(new RegExp(`^crm_sync_runs_total\\{result="${result}"\\} \\d+$`, 'm'));
    expect(text).to.match(/^crm_sync_failures_total\{reason="timeout"\} \d+$/m);
    expect(text).to.match(/^crm_sync_items_total\{kind="email"\} \d+$/m);
    expect(text).to.contain(`crm_build_info{version="${releaseVersion()}",node="${process.versions.node}"} 1`);
  });

  it('passes promtool check metrics on the whole scrape', async function () {
    this.timeout(300_000);
    if (spawnSync('promtool', ['--version']).status !== 0) {
      // Debian's package (the test scripts run as root); only when promtool is missing.
      execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'prometheus'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, stdio: 'ignore' });
    }
    const app = await testApp();
    await request(app).get('/api/health');
    await request(app).get(`/api/no-such-thing`);
    const text = await scrape();
    const res = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(res.status, `${res.stdout}${res.stderr}`).to.equal(0);
  });

  it('exposes the sync counters that the mail sync records', async () => {
    const ctx = await testContext();
    const labels = { result: 'error' };
    const before = sample(await scrape(), 'crm_sync_runs_total', labels);
    const failuresBefore = sample(await scrape(), 'crm_sync_failures_total', { reason: 'timeout' });
    ctx.services.metrics.startSyncRun()('error', 'timeout');
    const text = await scrape();
    expect(sample(text, 'crm_sync_runs_total', labels)).to.equal(before + 1);
    expect(sample(text, 'crm_sync_failures_total', { reason: 'timeout' })).to.equal(failuresBefore + 1);
    expect(sample(text, 'crm_sync_run_duration_seconds_count', labels)).to.be.greaterThan(0);
  });

  it('keeps every app in a registry of its own, not prom-client global one', async () => {
    const a = await testContext();
    const b = await testContext({ METRICS_PATH: '/metrics' });
    expect(a.services.metrics.registry).not.to.equal(b.services.metrics.registry);
    expect(await globalRegistry.getSingleMetricAsString('crm_http_requests_total').catch(() => '')).to.equal('');
  });

  it('serves at METRICS_PATH', async () => {
    const text = await scrape({ METRICS_PATH: '/metrics' }, '/metrics');
    expect(text).to.contain('crm_http_requests_total');
  });
});

describe('metrics endpoint access', () => {
  it('refuses a client outside METRICS_ALLOW (client IP from a trusted proxy)', async () => {
    const res = await request(await testApp({ TRUST_PROXY: '1' }))
      .get('/api/metrics')
      .set('X-Forwarded-For', '203.0.113.7');
    expect(res.status).to.equal(403);
    expect(res.body).to.deep.equal({ success: false, error: { message: 'Prístup zamietnutý', statusCode: 403, code: 'forbidden' } });
    expect(res.text).not.to.contain('crm_http');
  });

  it('refuses a request forwarded by an untrusted same-host proxy (TRUST_PROXY=0)', async () => {
    const res = await request(await testApp())
      .get('/api/metrics')
      .set('X-Forwarded-For', '203.0.113.7');
    expect(res.status).to.equal(403);
  });

  it('serves a configured monitoring network', async () => {
    const app = await testApp({ TRUST_PROXY: '1', METRICS_ALLOW: '192.0.2.0/24, 203.0.113.7' });
    expect((await request(app).get('/api/metrics').set('X-Forwarded-For', '203.0.113.7')).status).to.equal(200);
    expect((await request(app).get('/api/metrics').set('X-Forwarded-For', '192.0.2.200')).status).to.equal(200);
    expect((await request(app).get('/api/metrics').set('X-Forwarded-For', '198.51.100.1')).status).to.equal(403);
    // Loopback is not implicitly allowed once the list is set.
    expect((await request(app).get('/api/metrics')).status).to.equal(403);
  });

  it('is switched off with METRICS_ALLOW=none (404 in the envelope)', async () => {
    const res = await request(await testApp({ METRICS_ALLOW: 'none' })).get('/api/metrics');
    expect(res.status).to.equal(404);
    expect(res.body.success).to.equal(false);
  });

  it('rejects an invalid METRICS_ALLOW at start', () => {
    for (const bad of ['localhost', '10.0.0.0/33', '::1/129', '10.0.0.1/8/1', ' , ']) {
      expect(() => AppConfig.fromEnv({ ...baseTestEnv(), METRICS_ALLOW: bad }), bad).to.throw(ConfigError, /METRICS_ALLOW/);
    }
  });
});
