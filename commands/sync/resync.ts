import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { commandHost } from '../../src/cli/command-host.js';
import { pageReporter } from '../../src/cli/resync-output.js';
import { renderTable } from '../../src/cli/table.js';
import { AppError, ConflictError } from '../../src/errors/app-errors.js';
import { idParams, parse } from '../../src/shared/validation.js';
import type { ResyncResult } from '../../src/sync/resync-service.js';

export default class SyncResync extends BaseCommand {
  static override description =
    'Read mail again from the mail server, so that mail synced by an older release gets what later releases store ' +
    '(Cc, Reply-To, every address header). Emails and contacts are refreshed, never doubled; notes, read state not yet ' +
    'sent to the server, deleted contacts and erased addresses stay as they are. Holds the account sync lease (the ' +
    'scheduled sync of that account waits) and refuses, exit 1, when another process holds it. Paced: one page, then a ' +
    'pause. Resumable: Ctrl-C or SIGTERM stops after the page in progress and the next run continues there; a finished ' +
    'resync starts over only with --restart. Accounts stopped on wrong credentials are left out of --all.';

  static override examples = [
    '<%= config.bin %> sync resync --all',
    '<%= config.bin %> sync resync --account 3f0c… --page-size 50 --pause-ms 2000',
    '<%= config.bin %> sync resync --all --max-pages 100   # a slice per night; the next run continues',
    '<%= config.bin %> sync resync --account 3f0c… --restart --json',
  ];

  static override flags = {
    account: Flags.string({ char: 'a', description: 'email account id (see email-accounts list)', exactlyOne: ['account', 'all'] }),
    all: Flags.boolean({ description: 'every active email account, one after the other', exactlyOne: ['account', 'all'] }),
    restart: Flags.boolean({ description: 'start a finished (or unfinished) resync over from the newest email', default: false }),
    'page-size': Flags.integer({ description: 'emails per request to the mail server (at most its maxObjectsInGet)', default: 100, min: 1, max: 500 }),
    'pause-ms': Flags.integer({ description: 'pause after each page, in milliseconds', default: 1000, min: 0, max: 60_000 }),
    'max-pages': Flags.integer({ description: 'stop after this many pages per account in this run (run again to continue)', min: 1 }),
  };

  async run(): Promise<{ results: ResyncResult[] }> {
    const { flags } = await this.parse(SyncResync);
    const ctx = await this.appContext();
    const accountId = flags.account === undefined ? undefined : parse(idParams, { id: flags.account }).id;
    if (accountId) await ctx.services.emailAccountAdmin.get(accountId);

    // Ctrl-C / SIGTERM: the page in progress commits (or is dropped whole), the lease is given back, the next run continues.
    const stop = new AbortController();
    const onSignal = (signal: NodeJS.Signals) => {
      commandHost().stderr.write(`${signal}: stopping after the page in progress; run the command again to continue\n`);
      stop.abort();
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const report = pageReporter(!this.jsonEnabled());
    const options = {
      restart: flags.restart,
      pacing: { pageSize: flags['page-size'], pauseMs: flags['pause-ms'], maxPages: flags['max-pages'] },
      signal: stop.signal,
      onPage: report.page,
    };
    let results: ResyncResult[];
    try {
      const resync = ctx.services.mailResync;
      results = accountId ? [await resync.resyncAccount(accountId, options, this.cliMeta())] : await resync.resyncAll(options, this.cliMeta());
    } finally {
      report.stop();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    this.printResults(results);
    return this.verdict(results, stop.signal.aborted);
  }

  private printResults(results: ResyncResult[]): void {
    if (results.length === 0) {
      this.log('No active email accounts to resync.');
      return;
    }
    this.log(
      renderTable(results, [
        { header: 'account', get: (r) => r.accountId },
        { header: 'email', get: (r) => r.email },
        { header: 'outcome', get: (r) => r.outcome },
        { header: 'pages', get: (r) => r.pages },
        { header: 'fetched', get: (r) => r.fetched },
        { header: 'stored', get: (r) => r.stored },
        { header: 'pass pages', get: (r) => r.pagesDone },
        { header: 'no Cc/Reply-To', get: (r) => (r.withoutAddresses ? `${r.withoutAddresses.before} -> ${r.withoutAddresses.after}` : '') },
        { header: 'reason', get: (r) => r.reason ?? (r.outcome === 'already_finished' ? 'finished earlier; --restart to run again' : ''), maxWidth: 80 },
      ]),
    );
  }

  /** Exit 1 when an account was refused (lease held elsewhere), failed, or the run was stopped by a signal. */
  private verdict(results: ResyncResult[], stopped: boolean): { results: ResyncResult[] } {
    const refused = results.filter((r) => r.outcome === 'refused');
    const failed = results.filter((r) => r.outcome === 'error');
    if (refused.length + failed.length > 0 || stopped) {
      // Scripts get the full results on stdout and a failing exit code; the summary goes to stderr.
      if (this.jsonEnabled()) this.logJson({ results });
    }
    if (failed.length > 0) {
      throw new AppError(`Opätovné načítanie pošty zlyhalo pre ${failed.length} účet(y)`, 502, { failed: failed.map((r) => ({ accountId: r.accountId, reason: r.reason })) });
    }
    if (refused.length > 0) {
      throw new ConflictError(`Opätovné načítanie pošty neprebehlo pre ${refused.length} účet(y)`, { refused: refused.map((r) => ({ accountId: r.accountId, reason: r.reason })) });
    }
    if (stopped) throw new ConflictError('Opätovné načítanie pošty bolo prerušené; spustite príkaz znova a bude pokračovať', { stopped: true });
    return { results };
  }
}
