import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
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

  it('the tree as it is passes the layer rules', () => {
    const result = depcruise('src', 'commands');
    expect(result.status, result.stdout + result.stderr).to.equal(0);
  });

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

  it('fails on a promise nobody awaits or handles', () => {
    const file = probe('src/shared/zz-probe-floating.ts', 'export async function work(): Promise<void> {}\nexport function caller(): void {\n  work();\n}\n');
    const result = spawnSync('npx', ['eslint', file], { cwd: root, encoding: 'utf8' });
    expect(result.status).to.not.equal(0);
    expect(result.stdout).to.include('no-floating-promises');
  });
});
