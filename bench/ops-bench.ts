/**
 * What operations cost: the per-request price of the metrics middleware (bare express handler with and
 * without it, autocannon, alternating runs, medians), one Prometheus scrape, building the OpenAPI
 * document, and a graceful stop of `crm-admin serve` under keep-alive load (SIGTERM to exit).
 *
 *   node --import=tsx/esm bench/ops-bench.ts        # the serve part uses an embedded PostgreSQL in a temp dir
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import autocannon from 'autocannon';
import express from 'express';
import { httpMetricsMiddleware } from '../src/metrics/metrics-http.js';
import { AppMetrics } from '../src/metrics/metrics.js';
import { buildOpenApiDocument } from '../src/openapi/document.js';

const RUNS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function serveApp(withMetrics: boolean, metrics: AppMetrics): Promise<{ url: string; close: () => void }> {
  const app = express();
  if (withMetrics) app.use(httpMetricsMiddleware(metrics));
  const router = express.Router();
  router.get('/items/:id', (_req, res) => res.json({ success: true, data: { ok: true }, message: 'ok' }));
  app.use('/api', router);
  const server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

async function rps(url: string): Promise<number> {
  const result = await autocannon({ url: `${url}/api/items/3f1c7d3e-1111-4222-8333-944445555666`, connections: 50, duration: 4 });
  return result.requests.average;
}

const metrics = new AppMetrics();
const plain: number[] = [];
const measured: number[] = [];
for (let i = 0; i < RUNS; i++) {
  for (const [withMetrics, into] of [
    [false, plain],
    [true, measured],
  ] as const) {
    const s = await serveApp(withMetrics, metrics);
    into.push(await rps(s.url));
    s.close();
  }
}
console.log(`bare handler:         ${median(plain).toFixed(0)} req/s (median of ${RUNS})`);
console.log(`with metrics middleware: ${median(measured).toFixed(0)} req/s (throughput change ${((median(measured) / median(plain) - 1) * 100).toFixed(1)} %)`);

const scrapes: number[] = [];
for (let i = 0; i < 50; i++) {
  const t = process.hrtime.bigint();
  await metrics.registry.metrics();
  scrapes.push(Number(process.hrtime.bigint() - t) / 1e6);
}
console.log(`one scrape (registry.metrics()): ${median(scrapes).toFixed(2)} ms median`);

const builds: number[] = [];
for (let i = 0; i < 10; i++) {
  const t = process.hrtime.bigint();
  buildOpenApiDocument({ metricsPath: '/api/metrics' });
  builds.push(Number(process.hrtime.bigint() - t) / 1e6);
}
console.log(`OpenAPI document build: ${median(builds).toFixed(1)} ms median (built once per process, then cached)`);

// A real `crm-admin serve` (embedded database) stopped with SIGTERM while 50 keep-alive connections hammer readiness.
const dir = path.join('/tmp', `crm-ops-bench-${process.pid}`);
fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
const child = spawn('bin/crm-admin', ['serve', '--no-sync'], {
  env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', PORT: '0', CRM_DATA_DIR: dir, LOG_LEVEL: 'info', NODE_ENV: 'development' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let out = '';
child.stdout.on('data', (c: Buffer) => (out += c.toString()));
child.stderr.on('data', (c: Buffer) => (out += c.toString()));
const url = await new Promise<string>((resolve, reject) => {
  const timer = setInterval(() => {
    const m = /"url":"(http:\/\/[^"]+)"/.exec(out);
    if (m) {
      clearInterval(timer);
      resolve(m[1]);
    }
  }, 50);
  child.once('exit', (code) => reject(new Error(`serve exited ${code}:\n${out}`)));
});
const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
const load = autocannon({ url: `${url}/api/health/ready`, connections: 50, duration: 6 });
await new Promise((r) => setTimeout(r, 2_000));
const sent = process.hrtime.bigint();
child.kill('SIGTERM');
const code = await exited;
const stopMs = Number(process.hrtime.bigint() - sent) / 1e6;
const result = await load;
console.log(`graceful stop under load: exit ${code} after ${stopMs.toFixed(0)} ms (drain, pool, embedded PostgreSQL stop)`);
console.log(`  load during the run: ${result.requests.total} requests, non-2xx ${result.non2xx}, errors ${result.errors} (refused/reset after the listener closed)`);
fs.rmSync(dir, { recursive: true, force: true });
