/**
 * Sending and attachments against the real server (a child process on its own embedded PostgreSQL)
 * and the test Cyrus with its SMTP relay (scripts/jmap/start.sh):
 *
 * - streaming: the server's peak RSS growth while it streams a 25 MB attachment out (download) and
 *   a 10 MB attachment in (send), target < 30 MB each;
 * - reply latency: POST /api/emails/:id/reply (request -> 201) against the bare JMAP calls of the
 *   same submission (the same two requests: mailboxes + identity + original, then draft + submission +
 *   read-back) made directly on a warm client, interleaved in one run; target ratio <= 1.3.
 *
 *   node --import=tsx/esm bench/sending-bench.ts [replies=15]
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAndSubmit, JmapClient, prepareSend } from '../src/jmap/index.js';
import { EMAIL_GET_ARGS } from '../src/sync/jmap-sync-calls.js';
import { appendMessage, buildMessage, createTestMailUser } from '../test/support/imap.js';

const DOWNLOAD_BYTES = 25 * 1000 * 1000;
/** The test Cyrus allows 10 MiB of attachments per email (maxSizeAttachmentsPerEmail). */
const SEND_BYTES = 10 * 1000 * 1000;
const CHUNK = 64 * 1024;
const MB = 1024 * 1024;

interface ServerInfo {
  url: string;
  bearer: string;
  accountId: string;
  replyTarget: string;
  /** The reply target's JMAP id, for the bare calls. */
  replyTargetJmapId: string;
  bigEmail: string;
  bigAttachment: string;
}

interface Setup {
  sessionUrl: string;
  alice: { user: string; pass: string };
  bob: { user: string; pass: string };
  replyMessageId: string;
  bigMessageId: string;
}

// ---------------------------------------------------------------- server side (child process)
async function runServer(): Promise<void> {
  const setup = JSON.parse(process.env.BENCH_SETUP!) as Setup;
  const { AppConfig } = await import('../src/config/config.js');
  const { createAppContext } = await import('../src/app/context.js');
  const { startServer } = await import('../src/app/server.js');
  const ctx = await createAppContext({ config: AppConfig.fromEnv(), migrate: true });
  const { user } = await ctx.services.users.create({ username: `bench${crypto.randomBytes(4).toString('hex')}`, role: 'member' }, { actor: 'bench' });
  const { accessToken } = await ctx.services.sessions.create(user, { rememberMe: false }, { actor: 'bench' });
  const account = await ctx.services.emailAccounts.add(user.id, { email: setup.alice.user, emailPassword: setup.alice.pass }, { actor: 'bench' }, { requestSync: false });
  const synced = await ctx.services.mailSync.syncAccount(account.id);
  if (synced.outcome !== 'ok') throw new Error(`sync failed: ${synced.error}`);
  const [rows] = (await ctx.db.sequelize.query('SELECT id, jmap_id, message_id FROM emails WHERE email_account_id = $1', { bind: [account.id] })) as [
    Array<{ id: string; jmap_id: string; message_id: string }>,
    unknown,
  ];
  const rowOf = (messageId: string) => rows.find((r) => r.message_id === messageId)!;
  const idOf = (messageId: string) => rowOf(messageId).id;
  const big = await ctx.services.emails.get(user.id, idOf(setup.bigMessageId));
  const server = await startServer(ctx, { api: true, sync: false, port: 0, host: '127.0.0.1' });
  process.on('message', (message) => {
    if (message === 'stop') void server.stop().finally(() => process.exit(0));
  });
  process.send!({
    url: server.url,
    bearer: `Bearer ${accessToken}`,
    accountId: account.id,
    replyTarget: idOf(setup.replyMessageId),
    replyTargetJmapId: rowOf(setup.replyMessageId).jmap_id,
    bigEmail: big.id,
    bigAttachment: big.attachments![0].id,
  } satisfies ServerInfo);
}

// ---------------------------------------------------------------- client side
function requestOnce(
  info: ServerInfo,
  method: string,
  urlPath: string,
  headers: Record<string, string | number>,
  body?: Iterable<Buffer>,
): Promise<{ status: number; bytes: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${info.url}${urlPath}`, { method, headers: { Authorization: info.bearer, ...headers } });
    req.on('error', reject);
    req.on('response', (res) => {
      let bytes = 0;
      let text = '';
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (text.length < 2000) text += c.toString('utf8');
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, text }));
    });
    const chunks = [...(body ?? [])];
    const writeNext = () => {
      while (chunks.length > 0) if (!req.write(chunks.shift()!)) return void req.once('drain', writeNext);
      req.end();
    };
    writeNext();
  });
}

function* chunksOf(buffer: Buffer): Generator<Buffer> {
  for (let i = 0; i < buffer.length; i += CHUNK) yield buffer.subarray(i, i + CHUNK);
}

function sendWithAttachment(info: ServerInfo, to: string, file: Buffer) {
  const boundary = `----bench${crypto.randomBytes(8).toString('hex')}`;
  const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head = Buffer.from(
    field('emailAccountId', info.accountId) +
      field('to', to) +
      field('subject', `Bench ${crypto.randomBytes(3).toString('hex')}`) +
      field('text', 'Príloha.') +
      `--${boundary}\r\nContent-Disposition: form-data; name="attachments"; filename="data.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const headers = { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': head.length + file.length + tail.length };
  return requestOnce(info, 'POST', '/api/emails', headers, [head, ...chunksOf(file), tail]);
}

function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${field} for ${pid}`);
  return Number(match[1]);
}

/** RSS growth of `pid` during `work`: the kernel's peak (VmHWM, reset first) or, failing that, 5 ms samples. */
async function rssGrowthMb(pid: number, work: () => Promise<void>): Promise<number> {
  const baseKb = procStatusKb(pid, 'VmRSS');
  let reset = true;
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    reset = false;
  }
  let sampled = baseKb;
  const sampler = setInterval(() => (sampled = Math.max(sampled, procStatusKb(pid, 'VmRSS'))), 5);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  const peak = reset ? Math.max(procStatusKb(pid, 'VmHWM'), sampled) : sampled;
  return (peak - baseKb) / 1024;
}

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (n: number, digits = 1) => n.toFixed(digits);

/** The file as the sender would attach it: a base64 MIME part of random bytes. */
function messageWithAttachment(from: string, to: string, messageId: string, bytes: Buffer): string {
  const boundary = `b${crypto.randomBytes(8).toString('hex')}`;
  const b64 = bytes.toString('base64').replace(/.{76}/g, '$&\r\n');
  return [
    `From: <${from}>`,
    `To: <${to}>`,
    'Subject: Big file',
    `Message-ID: <${messageId}>`,
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'See attached.',
    `--${boundary}`,
    'Content-Type: application/octet-stream; name="big.bin"',
    'Content-Disposition: attachment; filename="big.bin"',
    'Content-Transfer-Encoding: base64',
    '',
    b64,
    `--${boundary}--`,
    '',
  ].join('\r\n');
}

async function main(): Promise<void> {
  const replies = Number(process.argv[2] ?? 15);
  const repo = fileURLToPath(new URL('../', import.meta.url));
  execFileSync('bash', [path.join(repo, 'scripts/jmap/start.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const sessionUrl = process.env.TEST_JMAP_SESSION_URL ?? `http://127.0.0.1:${process.env.JMAP_HTTP_PORT ?? 18080}/.well-known/jmap`;
  const [alice, bob] = await Promise.all([createTestMailUser('bench-alice'), createTestMailUser('bench-bob')]);
  const replyMessageId = `bench-${crypto.randomUUID()}@bench.test`;
  const bigMessageId = `bench-big-${crypto.randomUUID()}@bench.test`;
  await appendMessage({
    user: alice.user,
    pass: alice.pass,
    mailbox: 'INBOX',
    raw: buildMessage({ from: bob.user, to: alice.user, subject: 'Otázka', body: 'Máte čas?', messageId: replyMessageId }),
  });
  await appendMessage({
    user: alice.user,
    pass: alice.pass,
    mailbox: 'INBOX',
    raw: messageWithAttachment(bob.user, alice.user, bigMessageId, crypto.randomBytes(DOWNLOAD_BYTES)),
    timeoutMs: 120_000,
  });

  const root = path.join('/tmp', `crm-bench-${process.pid}-${Date.now()}`);
  fs.mkdirSync(path.join(root, 'data'), { recursive: true, mode: 0o755 });
  fs.chmodSync(root, 0o755);
  const setup: Setup = { sessionUrl, alice, bob, replyMessageId, bigMessageId };
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--server'], {
    execArgv: ['--import', 'tsx'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      NODE_ENV: 'production',
      CRM_DATA_DIR: path.join(root, 'data'),
      ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
      JWT_ACCESS_SECRET: crypto.randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: crypto.randomBytes(32).toString('hex'),
      CRM_ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
      JMAP_SESSION_URL: sessionUrl,
      JMAP_TIMEOUT_MS: '30000',
      SEND_RATE_LIMIT: '100000',
      LOG_LEVEL: 'warn',
      BENCH_SETUP: JSON.stringify(setup),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const info = await new Promise<ServerInfo>((resolve, reject) => {
      child.once('message', (m) => resolve(m as ServerInfo));
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const pid = child.pid!;
    const reply = async () => {
      const start = process.hrtime.bigint();
      const res = await requestOnce(info, 'POST', `/api/emails/${info.replyTarget}/reply`, { 'Content-Type': 'application/json' }, [
        Buffer.from(JSON.stringify({ text: 'Áno, mám.' })),
      ]);
      if (res.status !== 201) throw new Error(`reply answered ${res.status}: ${res.text}`);
      return seconds(start);
    };
    // The bare JMAP calls of the same submission, on a warm client.
    const client = new JmapClient({ sessionUrl, credentials: { kind: 'basic', username: alice.user, password: alice.pass } });
    const jmapAccountId = await client.mailAccountId();
    const originalId = info.replyTargetJmapId;
    const bare = async () => {
      const start = process.hrtime.bigint();
      const prepared = await prepareSend(client, jmapAccountId, alice.user, originalId);
      const draft = {
        from: [{ email: alice.user }],
        to: [{ email: bob.user }],
        subject: 'Re: Otázka',
        messageId: [`${crypto.randomUUID()}@example.test`],
        inReplyTo: [replyMessageId],
        references: [replyMessageId],
        bodyValues: { text: { value: 'Áno, mám.' } },
        textBody: [{ partId: 'text', type: 'text/plain' }],
      };
      const outcome = await createAndSubmit(client, jmapAccountId, prepared, { draft, envelope: { mailFrom: alice.user, rcptTo: [bob.user] } }, EMAIL_GET_ARGS);
      if (!outcome.ok) throw new Error(`bare submission failed: ${JSON.stringify(outcome)}`);
      return seconds(start);
    };

    // Warm-up of both paths (JIT, pools, sessions).
    for (let i = 0; i < 3; i++) {
      await reply();
      await bare();
    }
    const crmTimes: number[] = [];
    const bareTimes: number[] = [];
    for (let i = 0; i < replies; i++) {
      bareTimes.push(await bare());
      crmTimes.push(await reply());
    }

    const downloadOnce = async () => {
      const res = await requestOnce(info, 'GET', `/api/emails/${info.bigEmail}/attachments/${info.bigAttachment}`, {});
      if (res.status !== 200 || res.bytes !== DOWNLOAD_BYTES) throw new Error(`download answered ${res.status} with ${res.bytes} bytes`);
    };
    const coldDownload = await rssGrowthMb(pid, downloadOnce);
    const downloads: number[] = [];
    for (let i = 0; i < 3; i++) downloads.push(await rssGrowthMb(pid, downloadOnce));
    const download = Math.max(...downloads);
    const file = crypto.randomBytes(SEND_BYTES);
    let sendSeconds = 0;
    const send = await rssGrowthMb(pid, async () => {
      const start = process.hrtime.bigint();
      const res = await sendWithAttachment(info, bob.user, file);
      sendSeconds = seconds(start);
      if (res.status !== 201) throw new Error(`send answered ${res.status}: ${res.text}`);
    });

    const crm = median(crmTimes);
    const bareMedian = median(bareTimes);
    console.log(`reply latency, ${replies} interleaved pairs (medians):`);
    console.log(`  POST /api/emails/:id/reply -> 201:   ${fmt(crm * 1000)} ms`);
    console.log(`  bare JMAP calls (same submission):    ${fmt(bareMedian * 1000)} ms`);
    console.log(`  ratio: ${fmt(crm / bareMedian, 2)}x  (target <= 1.3: ${crm / bareMedian <= 1.3 ? 'met' : 'NOT met'})`);
    console.log('streaming (server peak RSS growth):');
    console.log(`  download of a ${fmt(DOWNLOAD_BYTES / MB)} MiB attachment, first after start: +${fmt(coldDownload)} MB`);
    console.log(`  download of a ${fmt(DOWNLOAD_BYTES / MB)} MiB attachment, worst of the next 3: +${fmt(download)} MB  (target < 30 MB: ${download < 30 ? 'met' : 'NOT met'})`);
    console.log(`  send with a ${fmt(SEND_BYTES / MB)} MiB attachment (${fmt(sendSeconds, 2)} s): +${fmt(send)} MB  (target < 30 MB: ${send < 30 ? 'met' : 'NOT met'})`);
  } finally {
    child.send('stop');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--server') {
  await runServer();
} else {
  await main();
}
