import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import type { SessionSummary } from '../../src/auth/session-management.js';

export default class UsersSessions extends BaseCommand {
  static override description =
    "List a user's open sessions (logins that still stand): when they logged in and last used it, from which " + 'address and browser. Never a token. "users logout" ends them.';

  static override examples = ['<%= config.bin %> users sessions jana', '<%= config.bin %> users sessions jana --json'];

  static override args = {
    username: Args.string({ description: 'login name of the user', required: true }),
  };

  async run(): Promise<{ username: string; sessions: SessionSummary[] }> {
    const { args } = await this.parse(UsersSessions);
    const ctx = await this.appContext();
    const user = await ctx.services.userAdmin.getByUsername(args.username);
    const sessions = await ctx.services.sessionManagement.list(user.id);
    if (sessions.length === 0) {
      this.log(`"${user.username}" has no open sessions.`);
    } else {
      this.log(
        renderTable(sessions, [
          { header: 'logged in', get: (s) => s.createdAt },
          { header: 'last used', get: (s) => s.lastUsedAt },
          { header: 'ip', get: (s) => s.ip },
          { header: 'remember', get: (s) => (s.rememberMe ? 'yes' : 'no') },
          { header: 'expires', get: (s) => s.expiresAt },
          { header: 'browser', get: (s) => s.userAgent, maxWidth: 50 },
          { header: 'id', get: (s) => s.id },
        ]),
      );
    }
    return { username: user.username, sessions };
  }
}
