import { Args } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { presentAdminApiToken, type AdminApiTokenView } from '../../src/api-tokens/api-token-presenter.js';
import { parse, idParams } from '../../src/shared/validation.js';

export default class TokensRevoke extends BaseCommand {
  static override description = 'Revoke a user\'s personal API token at once, on every instance (a leaked token, a leaver\'s integration). The id is in "tokens list".';

  static override examples = ['<%= config.bin %> tokens revoke 0190f3a2-...', '<%= config.bin %> tokens revoke 0190f3a2-... --yes --json'];

  static override args = {
    id: Args.string({ description: 'id of the token (tokens list)', required: true }),
  };

  async run(): Promise<{ revoked: AdminApiTokenView }> {
    const { args, flags } = await this.parse(TokensRevoke);
    const { id } = parse(idParams, { id: args.id });
    const ctx = await this.appContext();
    const token = await ctx.services.apiTokens.get(id);
    if (!(await this.confirm(`Revoke API token "${token.name}" of "${token.username}"?`, flags.yes))) this.error('Zrušené, nič sa nezmenilo', { exit: 1 });
    const revoked = presentAdminApiToken(await ctx.services.apiTokens.revoke(id, null, this.cliMeta()));
    this.log(`Revoked API token "${revoked.name}" of "${revoked.username}".`);
    return { revoked };
  }
}
