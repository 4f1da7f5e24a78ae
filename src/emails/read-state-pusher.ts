import { type JmapClient, setSeen } from '../jmap/index.js';
import type { Logger } from '../logging/logger.js';
import type { EmailAccount } from '../models/index.js';
import type { EmailRepository } from './email-repository.js';

export interface PushResult {
  /** Rows the server accepted; their read_pending is cleared (unless is_read changed meanwhile). */
  pushed: number;
  /**
   * Rows not accepted. They stay pending for the next attempt (the sync calls push() at the start of
   * each run), except those the server no longer has (notFound): nothing can ever be told about
   * them, so their flag is cleared and the sync's own delete handles the row.
   */
  failed: number;
}

export interface PushOptions {
  /** Only these emails (an interactive change); default every pending row of the account. */
  emailIds?: readonly string[];
}

const FIRST_ID = '00000000-0000-0000-0000-000000000000';

/**
 * Writes the CRM's read state back to the mail server as `$seen` (docs/adr/0008-read-state-crm-first.md). The local
 * change is the user's truth and is already committed with read_pending = true; this is the
 * best-effort second half. It never throws for a mail-server problem, so neither an API request nor
 * a sync run fails because the server is down.
 */
export class ReadStatePusher {
  /** One push per account at a time in this process, so an older value can never overtake a newer one. */
  private readonly running = new Map<string, Promise<PushResult>>();

  constructor(
    private readonly emails: EmailRepository,
    private readonly mail: { clientFor(account: EmailAccount): JmapClient },
    private readonly logger: Logger,
    private readonly batchSize = 500,
  ) {}

  push(account: EmailAccount, options: PushOptions = {}): Promise<PushResult> {
    const previous = this.running.get(account.id);
    const run = (previous ?? Promise.resolve()).catch(() => undefined).then(() => this.pushNow(account, options));
    this.running.set(account.id, run);
    const forget = () => {
      if (this.running.get(account.id) === run) this.running.delete(account.id);
    };
    run.then(forget, forget);
    return run;
  }

  private async pushNow(account: EmailAccount, options: PushOptions): Promise<PushResult> {
    if (options.emailIds && options.emailIds.length === 0) return { pushed: 0, failed: 0 };
    const result: PushResult = { pushed: 0, failed: 0 };
    let client: JmapClient | undefined;
    let after = FIRST_ID;
    for (;;) {
      const rows = await this.emails.pendingReadStates(account.id, after, this.batchSize, options.emailIds);
      if (rows.length === 0) return result;
      after = rows[rows.length - 1].id;
      let accepted: Set<string>;
      let gone: Set<string>;
      try {
        client ??= this.mail.clientFor(account);
        const seen = await setSeen(client, account.jmapAccountId, Object.fromEntries(rows.map((r) => [r.jmap_id, r.is_read])));
        accepted = new Set(seen.updated);
        gone = new Set(
          Object.entries(seen.notUpdated)
            .filter(([, e]) => e.type === 'notFound')
            .map(([id]) => id),
        );
      } catch (err) {
        // Server down, wrong password, no JMAP_SESSION_URL: keep everything pending for the sync's retry.
        const left = rows.length + (await this.emails.countPendingReadStates(account.id, after, options.emailIds));
        this.logger.warn('read state write-back failed; kept pending', { emailAccountId: account.id, pending: left, err: describe(err) });
        result.failed += left;
        return result;
      }
      await this.emails.clearReadPending(
        account.id,
        rows.filter((r) => accepted.has(r.jmap_id) || gone.has(r.jmap_id)),
      );
      const pushedHere = rows.filter((r) => accepted.has(r.jmap_id)).length;
      result.pushed += pushedHere;
      result.failed += rows.length - pushedHere;
    }
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
