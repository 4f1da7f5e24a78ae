/**
 * npm run lint's check of the OpenAPI document (built in-process from the route tables): Redocly at
 * recommended-strict (redocly.yaml) and Spectral at spectral:oas plus the project's rules
 * (.spectral.yaml), where any finding of either, warnings and hints included, fails the lint.
 *
 * A clean pass is remembered by the digest of everything the verdict depends on (the document, both
 * rule files, both linters' versions) in node_modules/.cache, like prettier's --cache: the same input
 * is not linted again (about 8 s of CPU that `npm run lint` shares with ESLint). A finding is never
 * remembered, so it shows on every run until it is mended.
 *
 *   npx tsx scripts/openapi-lint.ts
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildOpenApiDocument } from '../src/openapi/document.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../', import.meta.url));
const bin = (name: string) => path.join(repoRoot, 'node_modules', '.bin', name);
// Offline and quiet: no update check, no telemetry.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

async function lint(file: string, args: string[]): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout, stderr } = await run(file, args, { env, cwd: repoRoot, maxBuffer: 32 * 1024 * 1024 });
    return { ok: true, output: `${stdout}${stderr}` };
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    return { ok: false, output: `${stdout ?? ''}${stderr ?? String(err)}` };
  }
}

const passFile = path.join(repoRoot, 'node_modules', '.cache', 'openapi-lint', 'clean');

/** The digest of the verdict's inputs: the document as linted, the rule files, the linters' versions. */
function verdictKey(document: string): string {
  const hash = crypto.createHash('sha256').update(document);
  for (const file of ['redocly.yaml', '.spectral.yaml', 'node_modules/@redocly/cli/package.json', 'node_modules/@stoplight/spectral-cli/package.json']) {
    hash.update(`\0${file}\0`).update(fs.readFileSync(path.join(repoRoot, file)));
  }
  return hash.digest('hex');
}

async function main(): Promise<void> {
  const document = JSON.stringify(buildOpenApiDocument({ metricsPath: '/api/metrics' }), null, 2);
  const key = verdictKey(document);
  if (fs.existsSync(passFile) && fs.readFileSync(passFile, 'utf8') === key) {
    process.stdout.write('OpenAPI document: Redocly recommended-strict and Spectral clean (unchanged since the last clean pass)\n');
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-openapi-lint-'));
  try {
    const documentFile = path.join(dir, 'openapi.json');
    fs.writeFileSync(documentFile, document);
    const [redocly, spectral] = await Promise.all([
      lint(bin('redocly'), ['lint', documentFile, '--config', path.join(repoRoot, 'redocly.yaml'), '--max-problems', '50']),
      lint(bin('spectral'), ['lint', documentFile, '--ruleset', path.join(repoRoot, '.spectral.yaml'), '--fail-severity', 'hint']),
    ]);
    // Redocly fails on errors only: recommended-strict makes every recommended rule one; a warning of a rule added later fails here too.
    const redoclyWarnings = /\d+ warnings?/.test(redocly.output) && !/\b0 warnings\b/.test(redocly.output);
    for (const [name, result, clean] of [
      ['redocly (recommended-strict)', redocly, redocly.ok && !redoclyWarnings],
      ['spectral (spectral:oas + .spectral.yaml, any severity)', spectral, spectral.ok],
    ] as const) {
      if (!clean) process.stderr.write(`OpenAPI lint: ${name} found problems\n${result.output}\n`);
    }
    if (!redocly.ok || redoclyWarnings || !spectral.ok) process.exitCode = 1;
    else {
      process.stdout.write('OpenAPI document: Redocly recommended-strict and Spectral clean\n');
      fs.mkdirSync(path.dirname(passFile), { recursive: true });
      fs.writeFileSync(passFile, key);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
