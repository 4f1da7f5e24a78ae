import { expect } from 'chai';
import { runCli, type CliResult } from '../support/cli.js';
import { runCliInProcess, runsInProcess } from '../support/cli-in-process.js';
import { createUser, uniqueName, type UserFixture } from '../support/factories.js';
import { testContext } from '../support/harness.js';
import { cliEnv } from './cli-helpers.js';

/**
 * cli()/cliJson() run most commands inside the test process (ADR 0127). The tests that use them
 * assert exit codes, stdout and stderr as an admin sees them: here the same command lines run both
 * ways, and what the real crm-admin answers is what the in-process run must answer, byte for byte.
 */
describe('crm-admin in the test process answers as the real process', function () {
  this.timeout(120_000);
  let user: UserFixture;
  let other: UserFixture;

  before(async function () {
    // About the in-process mode: with every call spawned there is nothing to compare.
    if (process.env.TEST_CLI === 'process') this.skip();
    await testContext();
    user = await createUser();
    other = await createUser();
  });

  const seen = (res: CliResult) => ({ status: res.status, stdout: res.stdout, stderr: res.stderr });

  async function bothWays(args: string[], env = cliEnv()): Promise<CliResult> {
    // Otherwise both runs would be the real process and the comparison would prove nothing.
    expect(await runsInProcess(args, env), `${args.join(' ')} runs in the test process`).to.equal(true);
    const exitCode = process.exitCode;
    const here = await runCliInProcess(args, env);
    expect(process.exitCode, 'the test process keeps its exit code').to.equal(exitCode);
    const real = await runCli(args, env);
    expect(seen(here), args.join(' ')).to.deep.equal(seen(real));
    return here;
  }

  it('a table and --json on stdout, exit 0', async () => {
    expect((await bothWays(['users', 'list', '--search', user.username])).stdout).to.contain(user.username);
    expect(JSON.parse((await bothWays(['users', 'list', '--search', user.username, '--json'])).stdout).items).to.have.length(1);
  });

  it('usage errors (a missing flag, a bad value) on stderr, exit 2, as text and as JSON', async () => {
    for (const args of [
      ['timesheets', 'purge', '--dry-run'],
      ['users', 'list', '--limit', '0'],
      ['users', 'list', '--limit', '0', '--json'],
    ]) {
      expect((await bothWays(args)).status, args.join(' ')).to.equal(2);
    }
  });

  it('a refusal without a terminal exits 2; not found exits 1, as text and as JSON', async () => {
    expect((await bothWays(['users', 'disable', user.username])).status).to.equal(2);
    expect((await bothWays(['users', 'disable', uniqueName('ghost'), '--yes'])).status).to.equal(1);
    expect((await bothWays(['users', 'disable', uniqueName('ghost'), '--yes', '--json'])).status).to.equal(1);
  });

  it('an invalid configuration from the given environment exits 1 and names the variable', async () => {
    const res = await bothWays(['users', 'list'], cliEnv({ BCRYPT_ROUNDS: 'many' }));
    expect(res.status).to.equal(1);
    expect(res.stderr).to.contain('BCRYPT_ROUNDS');
  });

  it('two commands at once each write to their own output', async () => {
    const [json, table] = await Promise.all([
      runCliInProcess(['users', 'list', '--search', user.username, '--json'], cliEnv()),
      runCliInProcess(['users', 'list', '--search', other.username], cliEnv()),
    ]);
    expect(JSON.parse(json.stdout).items.map((u: { username: string }) => u.username)).to.deep.equal([user.username]);
    expect(table.stdout).to.contain(other.username).and.not.contain(user.username);
  });

  it('another database, serve/doctor/db, --help and TEST_CLI=process go to the real process', async () => {
    expect(await runsInProcess(['users', 'list'], cliEnv({ DATABASE_URL: 'postgres://elsewhere/crm' }))).to.equal(false);
    for (const args of [['doctor'], ['db', 'migrate'], ['users', 'list', '--help'], ['--version']]) {
      expect(await runsInProcess(args, cliEnv()), args.join(' ')).to.equal(false);
    }
  });
});
