/**
 * Writing mail (issue 47): the draft autosave (PATCH /api/drafts/:id with a text that changes each
 * time) and a template render (POST /api/templates/:id/render for a contact), through the whole HTTP
 * stack on a migrated database with one seeded mailbox; plus the render's pure function alone.
 * Targets: PATCH p50 < 20 ms, render p50 < 5 ms. Prints p50/p99 per scenario and one JSON line.
 *
 *   node --import=tsx/esm bench/compose-bench.ts
 *   BENCH_ITERATIONS=500 BENCH_TEXT_CHARS=4000
 */
import http from 'node:http';
import os from 'node:os';
import { createApp } from '../src/app/http-app.js';
import { renderTemplate } from '../src/templates/template-render.js';
import { openBenchDatabase } from './bench-database.js';
import { percentile, scalar } from './bench-http.js';
import { seedMailbox } from './contacts-seed.js';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 500);
const TEXT_CHARS = Number(process.env.BENCH_TEXT_CHARS ?? 4000);
const WARMUP = 50;

function send(to: { base: string; agent: http.Agent; token: string }, method: string, path: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const { base, agent, token } = to;
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      { method, agent, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': payload.length } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function timed(count: number, run: (i: number) => Promise<number>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = process.hrtime.bigint();
    const status = await run(i);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (status !== 200) throw new Error(`HTTP ${status}`);
  }
  return samples;
}

function line(name: string, samples: number[]): string {
  return `${name.padEnd(34)} n=${String(samples.length).padStart(5)}  p50 ${percentile(samples, 50).toFixed(2).padStart(7)} ms  p99 ${percentile(samples, 99).toFixed(2).padStart(7)} ms`;
}

async function main(): Promise<void> {
  const db = await openBenchDatabase('compose', { BCRYPT_ROUNDS: '4' });
  const ctx = db.ctx;
  const server = http.createServer(createApp(ctx));
  try {
    const m = await seedMailbox(ctx, 'compose', { contacts: 500, emails: 5000 });
    await ctx.db.sequelize.query(`UPDATE contacts SET name = 'Ľubomír Šebo' WHERE id = '${m.medianContactId}'`);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const token = (await ctx.services.sessions.create(m.user, { rememberMe: false }, { actor: 'bench' })).accessToken;
    const to = { base, agent, token };

    const draft = await send(to, 'POST', '/api/drafts', { emailAccountId: m.account.id, to: 'klient@partner1.sk', subject: 'Ponuka', text: '' });
    const draftId = (draft.json as { data: { draft: { id: string } } }).data.draft.id;
    const template = {
      name: 'Ponuka',
      subject: 'Ponuka pre {{contact.name}} ({{company.name}})',
      text: `Dobrý deň, {{contact.firstName}},\n\n${'posielame ponuku. '.repeat(40)}\n\n{{user.firstName}} {{user.lastName}}`,
      html: `<p>Dobrý deň, <b>{{contact.name}}</b>,</p><p>${'posielame ponuku. '.repeat(40)}</p>`,
    };
    const created = await send(to, 'POST', '/api/templates', template);
    const templateId = (created.json as { data: { template: { id: string } } }).data.template.id;

    const text = (i: number) => `${'Dobrý deň, píšem koncept. '.repeat(Math.ceil(TEXT_CHARS / 26)).slice(0, TEXT_CHARS)} ${i}`;
    const patch = (i: number) => send(to, 'PATCH', `/api/drafts/${draftId}`, { text: text(i) }).then((r) => r.status);
    const render = () => send(to, 'POST', `/api/templates/${templateId}/render`, { contactId: m.medianContactId }).then((r) => r.status);
    await timed(WARMUP, patch);
    await timed(WARMUP, render);
    const patches = await timed(ITERATIONS, patch);
    const renders = await timed(ITERATIONS, render);
    const values = await ctx.services.templates.values(m.user.id, { contactId: m.medianContactId });
    const stored = await ctx.services.templates.get(m.user.id, templateId);
    const pure: number[] = [];
    for (let i = 0; i < ITERATIONS * 10; i++) {
      const t0 = process.hrtime.bigint();
      renderTemplate(stored, values);
      pure.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    agent.destroy();
    console.log(
      `\ncompose bench: ${await scalar(ctx, 'SELECT count(*) FROM emails')} emails, draft text ${TEXT_CHARS} chars; load ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores (shared machine)`,
    );
    console.log(line('PATCH /api/drafts/:id (autosave)', patches));
    console.log(line('POST /api/templates/:id/render', renders));
    console.log(line('renderTemplate() alone', pure));
    console.log(
      JSON.stringify({
        draftPatchP50Ms: +percentile(patches, 50).toFixed(2),
        draftPatchP99Ms: +percentile(patches, 99).toFixed(2),
        templateRenderP50Ms: +percentile(renders, 50).toFixed(2),
        templateRenderP99Ms: +percentile(renders, 99).toFixed(2),
        renderFunctionP50Ms: +percentile(pure, 50).toFixed(4),
      }),
    );
  } finally {
    server.close();
    await db.close({ keep: !!process.env.BENCH_KEEP });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
