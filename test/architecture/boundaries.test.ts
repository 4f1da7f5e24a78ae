import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

/**
 * The lint that keeps the layers (docs/architecture.md) must really fail on a violation: a probe file
 * with each kind of violation is written into the tree, checked, and removed.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const probes: string[] = [];

function probe(relative: string, source: string): string {
  const file = path.join(root, relative);
  fs.writeFileSync(file, source);
  probes.push(file);
  return relative;
}

function depcruise(...files: string[]) {
  return spawnSync('npx', ['depcruise', ...files, '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], { cwd: root, encoding: 'utf8' });
}

describe('architecture: the boundary and promise lint', function () {
  this.timeout(120_000);
  afterEach(() => {
    for (const file of probes.splice(0)) fs.rmSync(file, { force: true });
  });

  // That the tree as it is passes the layer rules is npm run lint's own check (scripts/lint.sh runs the
  // same depcruise over src and commands); here the rules must catch each kind of violation.

  it('fails when a service imports an HTTP helper or the composition root', () => {
    const file = probe('src/contacts/zz-probe-service.ts', "import '../http/respond.js';\nimport '../app/services.js';\nexport const probe = 1;\n");
    const result = depcruise(file);
    expect(result.status).to.not.equal(0);
    expect(result.stdout).to.include('services-know-no-http');
    expect(result.stdout).to.include('no-upward-to-entry-points');
  });

  it('fails when a command imports src/http or when two modules import each other', () => {
    const cmd = probe('commands/zz-probe.ts', "import '../src/http/respond.js';\nexport default 1;\n");
    const a = probe('src/shared/zz-probe-a.ts', "import { b } from './zz-probe-b.js';\nexport const a = () => b;\n");
    const b = probe('src/shared/zz-probe-b.ts', "import { a } from './zz-probe-a.js';\nexport const b = () => a;\n");
    const result = depcruise(cmd, a, b);
    expect(result.status).to.not.equal(0);
    expect(result.stdout).to.include('commands-use-services-not-http');
    expect(result.stdout).to.include('no-circular');
  });

  it('covers every folder of src/: each is an entry point, the HTTP helpers, the foundation or an area', () => {
    const config = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs')) as {
      forbidden: { name: string; from: { path?: string; pathNot?: string | string[] } }[];
    };
    const fromPath = (name: string) => new RegExp(config.forbidden.find((rule) => rule.name === name)!.from.path!);
    const entryPoint = new RegExp(config.forbidden.find((rule) => rule.name === 'no-upward-to-entry-points')!.from.pathNot as string);
    const [httpHelpers, foundation, area] = ['http-helpers-know-no-area', 'models-stay-below', 'services-know-no-http'].map(fromPath);
    const folders = fs
      .readdirSync(path.join(root, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders).to.include.members(['sending', 'maintenance', 'users', 'app', 'models']);
    const uncovered = folders.filter((folder) => {
      const file = `src/${folder}/some-service.ts`;
      return ![entryPoint, httpHelpers, foundation, area].some((pattern) => pattern.test(file));
    });
    expect(uncovered, 'src/ folders no layer rule covers').to.deep.equal([]);
    expect(area.test('src/sending/email-sender-service.ts') && area.test('src/maintenance/retention-service.ts')).to.equal(true);
  });

  it('fails when a service of an area created today imports express', () => {
    fs.mkdirSync(path.join(root, 'src/zz-probe-area'), { recursive: true });
    try {
      const file = probe('src/zz-probe-area/zz-probe-service.ts', "import express from 'express';\nexport const probe = express;\n");
      const result = depcruise(file);
      expect(result.status).to.not.equal(0);
      expect(result.stdout).to.include('services-know-no-http');
    } finally {
      fs.rmSync(path.join(root, 'src/zz-probe-area'), { recursive: true, force: true });
    }
  });

  it('fails on a promise nobody awaits or handles', () => {
    const file = probe('src/shared/zz-probe-floating.ts', 'export async function work(): Promise<void> {}\nexport function caller(): void {\n  work();\n}\n');
    const result = spawnSync('npx', ['eslint', file], { cwd: root, encoding: 'utf8' });
    expect(result.status).to.not.equal(0);
    expect(result.stdout).to.include('no-floating-promises');
  });
});
