/**
 * The month's export (GET /api/admin/timesheets/export) of 200 timesheets of 1 MB each, over HTTP
 * from the real server in this process, read by a client that only counts the bytes: the growth of
 * the process's peak RSS while the zip streams (the proof that it streams: under 50 MB, whatever the
 * month holds) and the throughput.
 *
 *   node --expose-gc --import tsx bench/timesheet-export-bench.ts [files=200] [megabytes=1]
 */
import crypto from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { startServer } from '../src/app/server.js';
import { Timesheet } from '../src/models/index.js';
import { LocalFileStorage } from '../src/storage/local-storage.js';
import { pdfFixture } from '../test/timesheets/fixtures.js';
import { openBenchDatabase } from './bench-database.js';

const FILES = Number(process.argv[2] ?? 200);
const FILE_MB = Number(process.argv[3] ?? 1);
const USERS = 20;
const MB = 1024 * 1024;
const LIMIT_MB = 50;
const YEAR = 2026;
const MONTH = 3;

function download(url: string, bearer: string): Promise<{ status: number; bytes: number; contentLength: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { Authorization: bearer } }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, contentLength: Number(res.headers['content-length']) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function main(): Promise<void> {
  const db = await openBenchDatabase('export');
  const { ctx } = db;
  try {
    // The month: FILES stored files of FILE_MB each, spread over USERS users (rows and files as uploads leave them).
    const storage = new LocalFileStorage(ctx.config.dataDir).store('timesheets');
    const users = [];
    for (let i = 0; i < USERS; i++) {
      users.push((await ctx.services.users.create({ username: `bench${i}-${crypto.randomBytes(3).toString('hex')}`, role: 'member' }, { actor: 'bench' })).user);
    }
    const file = pdfFixture(FILE_MB * MB);
    for (let i = 0; i < FILES; i++) {
      const stored = await storage.put(Readable.from([file]));
      await Timesheet.create({ userId: users[i % USERS].id, fileName: `vykaz-${i}.pdf`, filePath: stored.key, fileType: 'pdf', fileSize: stored.size, year: YEAR, month: MONTH });
    }
    const { user: admin } = await ctx.services.users.create({ username: `benchadmin${crypto.randomBytes(3).toString('hex')}`, role: 'admin' }, { actor: 'bench' });
    admin.changedPassword = true;
    await admin.save();
    const { accessToken } = await ctx.services.sessions.create(admin, { rememberMe: false }, { actor: 'bench' });
    const server = await startServer(ctx, { api: true, sync: false, port: 0, host: '127.0.0.1' });
    const url = `${server.url}/api/admin/timesheets/export?year=${YEAR}&month=${MONTH}`;
    const bearer = `Bearer ${accessToken}`;
    try {
      // One warm-up run (module loading, first queries), then the measured one from a collected heap.
      await download(url, bearer);
      (globalThis as { gc?: () => void }).gc?.();
      const baseline = process.memoryUsage().rss;
      let peak = baseline;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
      const started = process.hrtime.bigint();
      const result = await download(url, bearer);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      const growthMb = (peak - baseline) / MB;
      const contentMb = (FILES * file.length) / MB;
      console.log(`timesheet export: ${FILES} files x ${FILE_MB} MB (${USERS} users), zip ${(result.bytes / MB).toFixed(1)} MB, status ${result.status}`);
      console.log(`  Content-Length matches body: ${result.contentLength === result.bytes}`);
      console.log(`  time ${seconds.toFixed(2)} s, ${(contentMb / seconds).toFixed(0)} MB/s`);
      console.log(
        `  RSS baseline ${(baseline / MB).toFixed(1)} MB, peak ${(peak / MB).toFixed(1)} MB, peak growth ${growthMb.toFixed(1)} MB (limit ${LIMIT_MB} MB)${(globalThis as { gc?: unknown }).gc ? '' : ' [run with --expose-gc for a steadier baseline]'}`,
      );
      console.log(`  ${growthMb < LIMIT_MB && result.status === 200 && result.contentLength === result.bytes ? 'PASS' : 'FAIL'}`);
      if (growthMb >= LIMIT_MB || result.status !== 200) process.exitCode = 1;
    } finally {
      await server.stop();
    }
  } finally {
    await db.close();
  }
}

await main();
