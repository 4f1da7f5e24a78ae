/**
 * HTML bodies cleaned off the main thread (issue 52, finding 5; docs/adr/0162-html-cleaned-in-worker-threads.md).
 * A thread page of 12 emails of 500 kB styled HTML, cleaned the way 0.5.0 did (sanitize-html on the main
 * thread, one after the other) and the way 0.6.0 does (HtmlRenderPool, worker threads), in alternating
 * rounds, while a probe in another process asks an HTTP server of this process for /health every 10 ms.
 * Prints, per way: the probe's p50/p99/max latency during the renders (how long everyone else waits),
 * and the page's render time. The figures are ratios of the same run; the machine's load is printed.
 *
 *   node --import=tsx/esm bench/html-render-bench.ts
 *   BENCH_ROUNDS=4 BENCH_PAGES=2 BENCH_EMAIL_KB=500 BENCH_THREADS=1
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { createLogger } from '../src/logging/logger.js';
import { HtmlRenderPool } from '../src/emails/html-render-pool.js';
import { sanitiseEmailHtml } from '../src/emails/html-sanitiser.js';
import { percentile } from './bench-http.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const PAGES = Number(process.env.BENCH_PAGES ?? 2);
const EMAIL_BYTES = Number(process.env.BENCH_EMAIL_KB ?? 500) * 1024;
const THREADS = Number(process.env.BENCH_THREADS ?? Math.max(1, os.availableParallelism() - 1));

function styledEmail(n: number): string {
  const rows: string[] = [];
  for (let i = 0, size = 0; size < EMAIL_BYTES; i++) {
    const row = `<tr><td style="color:#333333;font-family:Arial,Helvetica,sans-serif;font-size:14px;line-height:20px;padding:4px 8px;border-bottom:1px solid #eeeeee">Položka ${n}.${i} <a href="https://shop.example/p/${i}" style="color:#0066cc;text-decoration:none">detail</a> <img src="https://cdn.example/i/${i}.png" width="16" height="16" style="border:0"></td></tr>\n`;
    rows.push(row);
    size += row.length;
  }
  return `<html><head><style>td{color:red}</style></head><body><table style="width:100%;border-collapse:collapse">${rows.join('')}</table></body></html>`;
}

/** A probe in another process: GET /health every 10 ms; on SIGUSR2 it prints its latencies (ms) as JSON. */
const PROBE = `
const http = require('node:http');
const port = Number(process.argv[1]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
let lat = [];
const tick = () => { const t = performance.now(); http.get({ host: '127.0.0.1', port, path: '/health', agent }, (res) => { res.resume(); res.on('end', () => lat.push(performance.now() - t)); }).on('error', () => {}); };
const timer = setInterval(tick, 10);
process.on('SIGUSR2', () => { process.stdout.write(JSON.stringify(lat) + '\\n'); lat = []; });
process.on('SIGTERM', () => { clearInterval(timer); process.exit(0); });
`;

async function main(): Promise<void> {
  const page = Array.from({ length: 12 }, (_, i) => styledEmail(i));
  const options = { inlineImages: new Map<string, string>(), remoteImages: false };
  const pool = new HtmlRenderPool({ threads: THREADS, timeoutMs: 600_000, logger: createLogger('error', { silent: true }) });
  const server = http.createServer((_req, res) => res.end('{"ok":true}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const probe = spawn(process.execPath, ['-e', PROBE, String((server.address() as AddressInfo).port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const reports: string[] = [];
  probe.stdout.setEncoding('utf8').on('data', (c: string) => reports.push(...c.split('\n').filter(Boolean)));
  const collect = async (): Promise<number[]> => {
    const before = reports.length;
    probe.kill('SIGUSR2');
    while (reports.length === before) await new Promise((r) => setTimeout(r, 20));
    return JSON.parse(reports.at(-1)!) as number[];
  };
  const ways = {
    'main thread (0.5.0)': async () => {
      for (const html of page) sanitiseEmailHtml(html, options);
    },
    'worker pool (0.6.0)': async () => {
      await Promise.all(page.map((html) => pool.sanitise(html, options)));
    },
  };
  // Warm-up: the pool's threads start, both ways' code is compiled.
  for (const run of Object.values(ways)) await run();
  await new Promise((r) => setTimeout(r, 300));
  await collect();
  const figures = new Map<string, { probe: number[]; pages: number[] }>(Object.keys(ways).map((k) => [k, { probe: [], pages: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? Object.entries(ways) : Object.entries(ways).reverse();
    for (const [name, run] of order) {
      await collect();
      for (let p = 0; p < PAGES; p++) {
        const t = performance.now();
        await run();
        figures.get(name)!.pages.push(performance.now() - t);
      }
      // Let the probe's answers to requests sent during the last page arrive.
      await new Promise((r) => setTimeout(r, 100));
      figures.get(name)!.probe.push(...(await collect()));
    }
  }
  probe.kill('SIGTERM');
  await pool.close();
  server.close();
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  console.log(`12 emails x ${Math.round(EMAIL_BYTES / 1024)} kB styled HTML per page, ${ROUNDS} alternating rounds of ${PAGES} pages, ${THREADS} worker thread(s)`);
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, ${os.availableParallelism()} cores`,
  );
  const rows: Record<string, Record<string, string | number>> = {};
  for (const [name, f] of figures) {
    rows[name] = {
      'probe p50': ms(percentile(f.probe, 50)),
      'probe p99': ms(percentile(f.probe, 99)),
      'probe max': ms(Math.max(...f.probe)),
      'probes answered': f.probe.length,
      'page p50': ms(percentile(f.pages, 50)),
    };
  }
  console.table(rows);
  const [a, b] = [...figures.values()];
  console.log(
    JSON.stringify({
      probeMaxRatio: +(Math.max(...b.probe) / Math.max(...a.probe)).toFixed(3),
      probeP99Ratio: +(percentile(b.probe, 99) / percentile(a.probe, 99)).toFixed(3),
      pageP50Ratio: +(percentile(b.pages, 50) / percentile(a.pages, 50)).toFixed(3),
    }),
  );
}

await main();
