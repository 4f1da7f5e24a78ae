import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { presentAdminApiToken, type AdminApiTokenView } from '../../src/api-tokens/api-token-presenter.js';
import { listResult } from '../../src/shared/pagination.js';

export default class TokensList extends BaseCommand {
  static override description = "List personal API tokens (every user's, or one user's), newest first: name, scopes, expiry, last use. Never a secret: only its hash is stored.";

  static override examples = ['<%= config.bin %> tokens list', '<%= config.bin %> tokens list --user jana', '<%= config.bin %> tokens list --json'];

  static override flags = {
    user: Flags.string({ char: 'u', description: 'only the tokens of this user (login name)' }),
    page: Flags.integer({ description: 'page number', min: 1, default: 1 }),
    limit: Flags.integer({ description: 'tokens per page', min: 1, max: 100, default: 50 }),
  };

  async run(): Promise<ReturnType<typeof listResult<AdminApiTokenView>>> {
    const { flags } = await this.parse(TokensList);
    const ctx = await this.appContext();
    const userId = flags.user ? (await ctx.services.userAdmin.getByUsername(flags.user)).id : null;
    const page = { page: flags.page, limit: flags.limit };
    const { items, total } = await ctx.services.apiTokens.list(userId, page);
    const tokens = items.map(presentAdminApiToken);
    if (tokens.length === 0) {
      this.log(total === 0 ? 'No API tokens.' : `No API tokens on page ${page.page} (${total} in total).`);
    } else {
      this.log(
        renderTable(tokens, [
          { header: 'user', get: (t) => t.username },
          { header: 'name', get: (t) => t.name, maxWidth: 40 },
          { header: 'scopes', get: (t) => t.scopes.join(','), maxWidth: 60 },
          { header: 'expires', get: (t) => t.expiresAt ?? 'never' },
          { header: 'last used', get: (t) => t.lastUsedAt },
          { header: 'created', get: (t) => t.createdAt },
          { header: 'id', get: (t) => t.id },
        ]),
      );
    }
    return listResult(tokens, page, total);
  }
}
