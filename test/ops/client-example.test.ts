import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Timesheet } from '../../src/models/index.js';
import { generateClientTypes, SCHEMA_FILE } from '../../scripts/client-generate.js';
import { createContact, createEmailAccount } from '../support/email-factories.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp } from '../support/harness.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const clientDir = path.join(repoRoot, 'clients/typescript');
const tsc = path.join(repoRoot, 'node_modules/.bin/tsc');

/** Runs the example as a frontend developer would (tsx), against the given server. */
async function runExample(baseUrl: string, username: string, password: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, CRM_URL: baseUrl, CRM_USERNAME: username, CRM_PASSWORD: password };
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', path.join(clientDir, 'example.ts')], { env, cwd: repoRoot, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

async function typecheck(project: string): Promise<{ ok: boolean; output: string }> {
  try {
    await run(tsc, ['-p', project], { cwd: repoRoot, timeout: 120_000 });
    return { ok: true, output: '' };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('the typed TypeScript client (clients/typescript)', function () {
  this.timeout(180_000);
  let server: http.Server;
  let baseUrl: string;
  let member: UserFixture;

  before(async () => {
    // The app of the suite (its responses are checked against the document too), on a real port.
    server = http.createServer(await testApp());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    member = await createUser({ password: 'Klientsky-priklad-2026' });
    const account = await createEmailAccount(member);
    await createContact(account, { email: 'zuzana@firma.sk', name: 'Zuzana Nová' });
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('the checked-in schema.d.ts is what the current document generates', async () => {
    expect(fs.readFileSync(SCHEMA_FILE, 'utf8') === (await generateClientTypes()), 'clients/typescript/schema.d.ts is stale: npm run client:generate').to.equal(true);
  });

  it('the example logs in, reads /me, lists contacts, uploads a timesheet and follows live updates against a running server', async () => {
    const result = await runExample(baseUrl, member.username, member.password!);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.contain('logged in; needsPasswordChange=false');
    expect(result.stdout).to.contain(`me: ${member.username} (member), id ${member.user.id}`);
    expect(result.stdout).to.contain('contacts: 1 of 1');
    expect(result.stdout).to.contain('Zuzana Nová <zuzana@firma.sk> unread 0');
    const uploaded = /uploaded: vykaz-2026-03\.pdf \(pdf, \d+ bytes\) for 2026-3, id ([0-9a-f-]{36})/.exec(result.stdout);
    expect(uploaded, result.stdout).to.not.equal(null);
    const row = await Timesheet.findByPk(uploaded![1]);
    expect(row).to.include({ userId: member.user.id, year: 2026, month: 3, fileType: 'pdf' });
    // It subscribed to GET /api/events and saw its own contact change arrive.
    expect(result.stdout).to.match(/live: contact\.updated [0-9a-f-]{36} in account [0-9a-f-]{36}/);
  });

  it('the example reports a failure by its error code', async () => {
    const result = await runExample(baseUrl, member.username, 'not-the-password');
    expect(result.code).to.equal(1);
    expect(result.stderr).to.contain('login failed: invalid_credentials (401)');
  });

  it('the client and the example compile on their own (strict, library types checked too)', async () => {
    const result = await typecheck(path.join(clientDir, 'tsconfig.json'));
    expect(result.ok, result.output).to.equal(true);
  });

  it('success bodies are typed: reading a field that is not documented does not compile', async () => {
    // If `data` were unknown or any, this probe would compile (or fail for another reason than the field).
    const probeDir = fs.mkdtempSync(path.join(clientDir, '.probe-'));
    try {
      fs.writeFileSync(
        path.join(probeDir, 'probe.ts'),
        [
          "import { createClient } from '../client.js';",
          'export async function probe(): Promise<string> {',
          "  const { data } = await createClient().GET('/api/contacts/{id}', { params: { path: { id: 'x' } } });",
          '  const known: string = data!.data.contact.emailAccountId;',
          '  return known + data!.data.contact.accountId;',
          '}',
        ].join('\n'),
      );
      fs.writeFileSync(path.join(probeDir, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', compilerOptions: { skipLibCheck: true }, include: ['*.ts'] }));
      const result = await typecheck(path.join(probeDir, 'tsconfig.json'));
      expect(result.ok).to.equal(false);
      expect(result.output).to.match(/probe\.ts\(5,\d+\): error TS2339: Property 'accountId' does not exist/);
      expect(result.output.match(/error TS/g)).to.have.length(1);
    } finally {
      fs.rmSync(probeDir, { recursive: true, force: true });
    }
  });
});
