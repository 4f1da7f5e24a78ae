/**
 * npm run lint's check of the OpenAPI document (built in-process from the route tables): Redocly at
 * recommended-strict (redocly.yaml) and Spectral at spectral:oas plus the project's rules
 * (.spectral.yaml), where any finding of either, warnings and hints included, fails the lint.
 *
 *   npx tsx scripts/openapi-lint.ts
 */
import { execFile } from 'node:child_process';
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

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-openapi-lint-'));
  try {
    const documentFile = path.join(dir, 'openapi.json');
    fs.writeFileSync(documentFile, JSON.stringify(buildOpenApiDocument({ metricsPath: '/api/metrics' }), null, 2));
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
    else process.stdout.write('OpenAPI document: Redocly recommended-strict and Spectral clean\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
