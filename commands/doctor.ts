import { backgroundJobs } from '../src/app/background-jobs.js';
import type { AppContext } from '../src/app/context.js';
import { BaseCommand } from '../src/cli/base-command.js';
import { commandHost } from '../src/cli/command-host.js';
import { renderTable } from '../src/cli/table.js';
import { DoctorRepository } from '../src/doctor/doctor-repository.js';
import { DoctorService, type DoctorReport } from '../src/doctor/doctor-service.js';

export default class Doctor extends BaseCommand {
  static override description =
    'Check the installation, the first thing to run: configuration, database (version, unaccent, pending migrations, ' +
    'connections left), mail server (JMAP session URL), data directory and free space, secrets file permissions, proxy ' +
    "settings, sync workers alive, each background job's backlog (job:<name>), clock. Each check is ok, warn or fail with a one-line fix; exits 1 when any fails. " +
    'Changes nothing: it works on a database with pending migrations and reports them.';

  static override examples = ['<%= config.bin %> doctor', '<%= config.bin %> doctor --json'];

  /**
   * Exempt from the refusal of commands on a database with pending migrations: doctor only reads,
   * and reporting those migrations is part of its job.
   */
  static readonly changesNothingOnOldSchema = true;

  async run(): Promise<DoctorReport> {
    await this.parse(Doctor);
    let ctx: AppContext | undefined;
    const doctor = new DoctorService({
      env: commandHost().env,
      // Never migrates: doctor must see the database as it is.
      openDatabase: async (config) => {
        ctx = await this.appContext({ migrate: false, config });
        return new DoctorRepository(ctx.db.sequelize);
      },
      // Each background job's backlog, as the crm_job_* gauges read it (ADR 0145).
      jobs: () => (ctx ? backgroundJobs(ctx.services, ctx.config) : []),
    });
    const result = await doctor.run();
    if (this.jsonEnabled()) {
      if (!result.ok) {
        this.logJson(result);
        return this.exit(1);
      }
      return result;
    }
    this.log(
      renderTable(result.checks, [
        { header: 'check', get: (c) => c.name },
        { header: 'status', get: (c) => c.status.toUpperCase() },
        { header: 'found', get: (c) => c.summary, maxWidth: 90 },
        { header: 'fix', get: (c) => c.fix },
      ]),
    );
    const count = (s: string) => result.checks.filter((c) => c.status === s).length;
    this.log(`${count('ok')} ok, ${count('warn')} warn, ${count('fail')} fail`);
    if (!result.ok) this.exit(1);
    return result;
  }
}
