import { expect } from 'chai';
import { createMigrator } from '../../src/db/migrator.js';
import { cliEnv } from '../admin/cli-helpers.js';
import { runCli, type CliResult } from '../support/cli.js';
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { freshMailUser, put } from './helpers.js';

const BACKFILL = '0026-participants-every-address-header';

/** The JSON log lines a command wrote to stderr (CLI_LOG_LEVEL=info). */
function logLines(res: CliResult): Array<{ level: string; message: string; migrations?: string[]; command?: string }> {
  return res.stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

/**
 * An upgrade that needs mail read again says so in its log: applying a migration marked as needing a
 * backfill (MIGRATIONS_NEEDING_RESYNC) to a database holding mail logs a warning naming
 * `crm-admin sync resync --all`; on a database without mail (a new installation) it stays quiet.
 */
describe('sync resync: the upgrade that needs it says so', function () {
  this.timeout(180_000);
  let database: ScratchDatabase;
  let env: Record<string, string>;

  before(async () => {
    database = await scratchDatabase('crm_resync_log');
    env = cliEnv({ DATABASE_URL: database.url, CLI_LOG_LEVEL: 'info', SYNC_CRON: '0 0 1 1 *' });
  });
  after(() => database?.drop());

  it('is quiet on a database without mail, and warns with the command when it applies such a migration to stored mail', async () => {
    const fresh = await runCli(['db', 'migrate', '--json'], env);
    expect(fresh.status, fresh.stderr).to.equal(0);
    expect(JSON.parse(fresh.stdout).applied).to.include(BACKFILL);
    expect(JSON.parse(fresh.stdout).needsResync).to.deep.equal([]);
    expect(logLines(fresh).filter((l) => l.level === 'warn')).to.deep.equal([]);

    const mail = await freshMailUser('resynclog');
    await put(mail, 'INBOX', { from: 'client@resync-log.example', to: mail.user, subject: 'Stored before the upgrade', body: 'one' });
    const created = await runCli(['users', 'create', '--username', `resynclog${Date.now()}`, '--email', mail.user, '--email-password-stdin', '--json'], env, mail.pass);
    expect(created.status, created.stderr).to.equal(0);
    const accountId = JSON.parse(created.stdout).emailAccount.id as string;
    const synced = await runCli(['sync', 'run', '--account', accountId], env);
    expect(synced.status, synced.stderr).to.equal(0);

    // As a database of the release before 0026 would be, then the upgrade. Undoing the migrations is
    // the setup, not what is tested (test/db/schema-gate.test.ts runs `db migrate --down`): done in this
    // process, newest first, rather than one crm-admin process per migration.
    const reverted = (await createMigrator(database.db).down({ to: BACKFILL })).map((m) => m.name);
    expect(reverted.at(-1)).to.equal(BACKFILL);
    const upgrade = await runCli(['db', 'migrate', '--json'], env);
    expect(upgrade.status, upgrade.stderr).to.equal(0);
    const upgraded = JSON.parse(upgrade.stdout) as { applied: string[]; needsResync: string[] };
    expect(upgraded.applied).to.deep.equal([...reverted].reverse());
    expect(upgraded.needsResync).to.deep.equal([BACKFILL]);
    const warnings = logLines(upgrade).filter((l) => l.level === 'warn');
    expect(warnings).to.have.length(1);
    expect(warnings[0].message).to.contain('crm-admin sync resync --all');
    expect(warnings[0].migrations).to.deep.equal([BACKFILL]);
  });
});
