import { BaseCommand } from '../../src/cli/base-command.js';
import { seed, type SeededUser } from '../../seeders/demo.js';

export default class DbSeed extends BaseCommand {
  static override description = 'Load the demo data set (an admin and two members) and print their temporary passwords.';
  static override examples = ['<%= config.bin %> db seed', '<%= config.bin %> db seed --json'];

  async run(): Promise<{ users: SeededUser[] }> {
    await this.parse(DbSeed);
    const ctx = await this.appContext();
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
