import { PassThrough } from 'node:stream';
import { setImmediate as later } from 'node:timers/promises';
import { expect } from 'chai';
import { commandHost, runWithHost, type CommandHost } from '../../src/cli/command-host.js';

function host(name: string): CommandHost & { out: PassThrough } {
  const out = new PassThrough();
  return { env: { CRM_ADMIN_ACTOR: name }, argv: [name], stdin: new PassThrough(), stdout: out, stderr: new PassThrough(), isProcess: false, out };
}

describe('unit: what a crm-admin command sees of its process (src/cli/command-host.ts)', () => {
  it('is the real process when no host was set', () => {
    const current = commandHost();
    expect(current.isProcess).to.equal(true);
    expect(current.env).to.equal(process.env);
    expect(current.stdout).to.equal(process.stdout);
    expect(current.stderr).to.equal(process.stderr);
    expect(current.argv).to.deep.equal(process.argv.slice(2));
  });

  it('two commands running at once each keep their own host across awaits, and the process is untouched', async () => {
    const run = (h: CommandHost & { out: PassThrough }) =>
      runWithHost(h, async () => {
        for (let i = 0; i < 3; i++) {
          await later();
          commandHost().stdout.write(`${commandHost().env.CRM_ADMIN_ACTOR} ${i}\n`);
        }
        return commandHost().argv[0];
      });
    const [a, b] = [host('alice'), host('bob')];
    expect(await Promise.all([run(a), run(b)])).to.deep.equal(['alice', 'bob']);
    expect(String(a.out.read())).to.equal('alice 0\nalice 1\nalice 2\n');
    expect(String(b.out.read())).to.equal('bob 0\nbob 1\nbob 2\n');
    expect(commandHost().isProcess).to.equal(true);
    expect(process.env.CRM_ADMIN_ACTOR).to.equal(undefined);
  });
});
