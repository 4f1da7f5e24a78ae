import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildOpenApiDocument } from '../../src/openapi/document.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const bin = (name: string) => path.join(repoRoot, 'node_modules', '.bin', name);
// Offline and quiet: no update check, no telemetry.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

/** Runs a linter that exits non-zero on errors; its JSON report is on stdout either way. */
async function lint(file: string, args: string[]): Promise<string> {
  try {
    return (await run(file, args, { env, cwd: repoRoot, maxBuffer: 32 * 1024 * 1024, timeout: 420_000 })).stdout;
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    const text = stdout?.trim() ?? '';
    if (text.startsWith('{') || text.startsWith('[')) return stdout!;
    throw new Error(`${path.basename(file)} failed: ${stderr ?? String(err)}`);
  }
}

describe('OpenAPI document lint (Redocly recommended, Spectral spectral:oas): the linters npm run lint runs', function () {
  this.timeout(900_000);
  let dir: string;
  let documentFile: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-openapi-'));
    documentFile = path.join(dir, 'openapi.json');
    fs.writeFileSync(documentFile, JSON.stringify(buildOpenApiDocument({ metricsPath: '/api/metrics' }), null, 2));
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  // That the document passes both is npm run lint's check (scripts/openapi-lint.ts, stricter: warnings
  // and hints fail it too), so it is not repeated here; this file proves the linters can fail.

  it('the linters do find errors (a broken document is refused by both)', async () => {
    const broken = path.join(dir, 'broken.json');
    const doc = JSON.parse(fs.readFileSync(documentFile, 'utf8')) as { paths: Record<string, Record<string, { responses?: unknown }>> };
    // An operation without responses and a $ref to nowhere: errors in both rulesets.
    delete doc.paths['/api/contacts'].get.responses;
    doc.paths['/api/contacts'].post = { $ref: '#/components/schemas/Nowhere' } as never;
    fs.writeFileSync(broken, JSON.stringify(doc));
    const redocly = JSON.parse(await lint(bin('redocly'), ['lint', broken, '--config', path.join(repoRoot, 'redocly.yaml'), '--format', 'json'])) as { totals: { errors: number } };
    expect(redocly.totals.errors).to.be.greaterThan(0);
    const spectral = JSON.parse(await lint(bin('spectral'), ['lint', broken, '--ruleset', path.join(repoRoot, '.spectral.yaml'), '--format', 'json', '--quiet'])) as Array<{
      severity: number;
    }>;
    expect(spectral.filter((r) => r.severity === 0).length).to.be.greaterThan(0);
  });
});
