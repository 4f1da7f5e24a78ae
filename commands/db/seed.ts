import { BaseCommand } from '../../src/cli/base-command.js';
import type { SeededUser } from '../../seeders/demo.js';

export default class DbSeed extends BaseCommand {
  static override description = 'Load the demo data set (an admin and two members) and print their temporary passwords.';
  static override examples = ['<%= config.bin %> db seed', '<%= config.bin %> db seed --json', 'NODE_ENV=production <%= config.bin %> db seed --yes'];

  async run(): Promise<{ users: SeededUser[] }> {
    const { flags } = await this.parse(DbSeed);
    // Demo accounts (an admin among them) do not belong in production by accident.
    if (this.appConfig().isProduction && !flags.yes) {
      this.error('db seed vytvára demo účty (aj administrátora); v produkcii (NODE_ENV=production) ho spustite s --yes', { exit: 2 });
    }
    const ctx = await this.appContext();
    const { seed } = await import('../../seeders/demo.js');
    const users = await seed(ctx.services, this.cliMeta());
    for (const u of users) {
      this.log(
        u.temporaryPassword
          ? `${u.role.padEnd(6)} ${u.username.padEnd(10)} temporary password: ${u.temporaryPassword}`
          : `${u.role.padEnd(6)} ${u.username.padEnd(10)} already exists (left unchanged)`,
      );
    }
    return { users };
  }
}
