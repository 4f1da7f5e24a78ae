import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { runCli, type CliResult } from '../support/cli.js';
import { cliEnv } from '../admin/cli-helpers.js';
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';

interface MigrateAudit {
  actor: string;
  success: boolean;
  details: { direction: string; from: string | null; to: string | null; steps: Array<{ name: string; direction: string; durationMs: number }> };
}

/**
 * Only `serve` and `db migrate` change the schema: through the real crm-admin on a database of its own,
 * migrated down one step as an older release would have left it.
 */
describe('schema changes only through db migrate (and serve)', function () {
  this.timeout(180_000);
  let database: ScratchDatabase;
  let env: Record<string, string>;

  before(async () => {
    database = await scratchDatabase('crm_schema_gate');
    env = cliEnv({ DATABASE_URL: database.url, CLI_LOG_LEVEL: 'info' });
  });
  after(() => database?.drop());

  const applied = async () => (await database.db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name', { type: QueryTypes.SELECT })).map((r) => r.name);
  const migrateAudits = () =>
    database.db.query<MigrateAudit>("SELECT actor, success, details FROM audit_logs WHERE action = 'db.migrate' ORDER BY id", { type: QueryTypes.SELECT });
  const auditCount = async () => (await database.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_logs', { type: QueryTypes.SELECT }))[0].n;
  /** The JSON log lines a command wrote to stderr (CLI_LOG_LEVEL=info). */
  const logLines = (res: CliResult) =>
    res.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { message: string; migration?: string; durationMs?: number });

  it('db migrate applies every migration, logs each (name, duration) and audits the change (from/to)', async () => {
    const res = await runCli(['db', 'migrate', '--json'], env);
    expect(res.status, res.stderr).to.equal(0);
    const names = await applied();
    const out = JSON.parse(res.stdout) as { applied: string[]; from: string | null; to: string };
    expect(out).to.deep.include({ applied: names, from: null, to: names.at(-1) });
    const logged = logLines(res).filter((l) => l.message === 'migration applied');
    expect(logged.map((l) => l.migration)).to.deep.equal(names);
    for (const line of logged) expect(line.durationMs).to.be.a('number').and.at.least(0);
    const audits = await migrateAudits();
    expect(audits).to.have.length(1);
    expect(audits[0].actor).to.match(/^cli:/);
    expect(audits[0].details).to.deep.include({ direction: 'up', from: null, to: names.at(-1) });
    expect(audits[0].details.steps.map((s) => s.name)).to.deep.equal(names);
  });

  it('db migrate --down reverts the newest one, logged and audited', async () => {
    const before = await applied();
    const res = await runCli(['db', 'migrate', '--down', '--yes', '--json'], env);
    expect(res.status, res.stderr).to.equal(0);
    expect(await applied()).to.deep.equal(before.slice(0, -1));
    expect(JSON.parse(res.stdout)).to.deep.include({ reverted: [before.at(-1)], from: before.at(-1), to: before.at(-2) });
    expect(
      logLines(res)
        .filter((l) => l.message === 'migration reverted')
        .map((l) => l.migration),
    ).to.deep.equal([before.at(-1)]);
    const last = (await migrateAudits()).at(-1)!;
    expect(last.details).to.deep.include({ direction: 'down', from: before.at(-1), to: before.at(-2) });
    expect(last.details.steps).to.have.length(1);
  });

  it('refuses any other command on the older schema: non-zero, names `crm-admin db migrate`, changes nothing', async () => {
    const schemaBefore = await applied();
    const auditsBefore = await auditCount();
    const res = await runCli(['users', 'list'], env);
    expect(res.status).to.equal(1);
    expect(res.stderr).to.contain('crm-admin db migrate');
    expect(res.stdout).to.equal('');
    const json = await runCli(['users', 'create', '--username', 'gate-user', '--json'], env);
    expect(json.status).to.equal(1);
    expect(JSON.parse(json.stderr.trim().split('\n').at(-1)!).error).to.include({ code: 'service_unavailable' });
    expect(json.stderr).to.contain('crm-admin db migrate');
    expect(await applied()).to.deep.equal(schemaBefore);
    expect(await auditCount()).to.equal(auditsBefore);
    const users = await database.db.query('SELECT 1 FROM users', { type: QueryTypes.SELECT });
    expect(users).to.have.length(0);
    // db migrate --status still answers (it only reads).
    const status = await runCli(['db', 'migrate', '--status', '--json'], env);
    expect(status.status, status.stderr).to.equal(0);
    expect(JSON.parse(status.stdout).pending).to.have.length(1);
  });

  it('db migrate brings it back, and the command works again', async () => {
    const res = await runCli(['db', 'migrate'], env);
    expect(res.status, res.stderr).to.equal(0);
    expect(res.stdout).to.match(/^applied: \d{4}-[a-z0-9-]+ \(\d+ ms\)/);
    expect((await migrateAudits()).at(-1)!.details.direction).to.equal('up');
    const list = await runCli(['users', 'list', '--json'], env);
    expect(list.status, list.stderr).to.equal(0);
  });
});
