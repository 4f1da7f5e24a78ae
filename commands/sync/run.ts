import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { AppError, ConflictError } from '../../src/errors/app-errors.js';
import { renderTable } from '../../src/cli/table.js';
import { progressBar } from '../../src/cli/progress.js';
import { idParams, parse } from '../../src/shared/validation.js';
import type { SyncResult } from '../../src/sync/sync-service.js';

const FAILED = new Set(['error', 'auth_failed']);

export default class SyncRun extends BaseCommand {
  static override description =
    'Sync mail now: one account, or every active account, whatever their schedule or backoff. Accounts that ' +
    'failed on wrong credentials are left out of --all unless --include-auth-failed. Exits 1 if any account failed ' +
    'or was skipped (another process holds its lease, it is inactive), and says why.';

  static override examples = ['<%= config.bin %> sync run --account 3f0c…', '<%= config.bin %> sync run --all', '<%= config.bin %> sync run --all --include-auth-failed --json'];

  static override flags = {
    account: Flags.string({ char: 'a', description: 'email account id (see email-accounts list)', exactlyOne: ['account', 'all'] }),
    all: Flags.boolean({ description: 'every active email account', exactlyOne: ['account', 'all'] }),
    'include-auth-failed': Flags.boolean({ description: 'with --all: also accounts stopped on wrong credentials', dependsOn: ['all'] }),
  };

  async run(): Promise<{ results: SyncResult[] }> {
    const { flags } = await this.parse(SyncRun);
    const ctx = await this.appContext();
    const sync = ctx.services.mailSync;
    const accountId = flags.account === undefined ? undefined : parse(idParams, { id: flags.account }).id;
    if (accountId) await ctx.services.emailAccountAdmin.get(accountId);
    // Emails fetched against the totals the server announced, summed over the accounts running.
    const perAccount = new Map<string, { fetched: number; total: number }>();
    const bar = progressBar('Syncing', !this.jsonEnabled());
    const fetchedSoFar = () => [...perAccount.values()].reduce((n, a) => n + a.fetched, 0);
    const onProgress = (p: { accountId: string; fetched: number; total?: number }) => {
      perAccount.set(p.accountId, { fetched: p.fetched, total: Math.max(p.total ?? 0, p.fetched) });
      const total = [...perAccount.values()].reduce((n, a) => n + a.total, 0);
      bar.update(fetchedSoFar(), Math.max(total, 1));
    };
    bar.start(1);
    let results: SyncResult[];
    try {
      if (accountId) {
        results = [await sync.syncAccount(accountId, { onProgress })];
      } else {
        results = await sync.syncAll({ onProgress, includeAuthFailed: flags['include-auth-failed'] === true });
      }
      // Totals are only estimates (incremental runs announce none): a finished run shows a full bar.
      const done = Math.max(fetchedSoFar(), 1);
      bar.update(done, done);
    } finally {
      bar.stop();
    }
    if (results.length === 0) {
      this.log('No active email accounts to sync.');
    } else {
      this.log(
        renderTable(results, [
          { header: 'account', get: (r) => r.accountId },
          { header: 'email', get: (r) => r.email },
          { header: 'outcome', get: (r) => r.outcome },
          { header: 'mode', get: (r) => r.mode },
          { header: 'fetched', get: (r) => r.fetched },
          { header: 'stored', get: (r) => r.stored },
          { header: 'deleted', get: (r) => r.deleted },
          { header: 'seconds', get: (r) => (r.durationMs / 1000).toFixed(1) },
          { header: 'error', get: (r) => r.error ?? r.skipReason, maxWidth: 80 },
        ]),
      );
    }
    const failed = results.filter((r) => FAILED.has(r.outcome));
    if (failed.length > 0) {
      // Scripts get the full results on stdout and a failing exit code; the summary goes to stderr.
      if (this.jsonEnabled()) this.logJson({ results });
      throw new AppError(`Synchronizácia zlyhala pre ${failed.length} účet(y)`, 502, { failed: failed.map((r) => r.accountId) });
    }
    const skipped = results.filter((r) => r.outcome === 'skipped');
    if (skipped.length > 0) {
      // Nothing was synced for these: a script must not take it for success.
      if (this.jsonEnabled()) this.logJson({ results });
      throw new ConflictError(`Synchronizácia neprebehla pre ${skipped.length} účet(y)`, { skipped: skipped.map((r) => ({ accountId: r.accountId, reason: r.skipReason })) });
    }
    return { results };
  }
}
