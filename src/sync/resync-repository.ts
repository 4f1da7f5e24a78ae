/**
 * Where each account's resync stands (resync_progress, migration 0031), and what is left for it to
 * fill. A page's progress is written inside the page's own transaction (BatchWriter's alongside), so
 * the emails and the position commit together: a resync stopped at any instant resumes after the last
 * page it committed, never skipping one.
 */
import { selectList, type ColumnOf, type TableRow } from '../db/rows.js';
import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';

export interface ResyncProgress {
  /** The JMAP id of the last email of the last committed page; null: from the top. */
  anchor: string | null;
  pagesDone: number;
  emailsDone: number;
  startedAt: Date;
  finishedAt: Date | null;
}

const PROGRESS_COLUMNS = ['jmap_account_id', 'anchor', 'pages_done', 'emails_done', 'started_at', 'finished_at'] as const satisfies readonly ColumnOf<'resync_progress'>[];
type ProgressRow = TableRow<'resync_progress', (typeof PROGRESS_COLUMNS)[number]>;
const COLUMNS = selectList(PROGRESS_COLUMNS);

export class ResyncRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * The account's progress, a new pass when there is none, when asked to start over (`restart`) or
   * when the account now points at another mailbox (the anchor would mean nothing there).
   */
  async begin(accountId: string, jmapAccountId: string, restart: boolean): Promise<ResyncProgress & { resumed: boolean }> {
    const row = await this.sql.one<ProgressRow>(`SELECT ${COLUMNS} FROM resync_progress WHERE email_account_id = $accountId`, { accountId });
    if (row && !restart && row.jmap_account_id === jmapAccountId) return { ...progressOf(row), resumed: row.pages_done > 0 && row.finished_at === null };
    const fresh = await this.sql.one<ProgressRow>(
      `INSERT INTO resync_progress (email_account_id, jmap_account_id) VALUES ($accountId, $jmapAccountId)
       ON CONFLICT (email_account_id) DO UPDATE SET jmap_account_id = EXCLUDED.jmap_account_id, anchor = NULL, pages_done = 0,
              emails_done = 0, started_at = now(), updated_at = now(), finished_at = NULL
       RETURNING ${COLUMNS}`,
      { accountId, jmapAccountId },
    );
    return { ...progressOf(fresh!), resumed: false };
  }

  /** The account's progress as stored, if it has any. */
  async current(accountId: string): Promise<ResyncProgress | undefined> {
    const row = await this.sql.one<ProgressRow>(`SELECT ${COLUMNS} FROM resync_progress WHERE email_account_id = $accountId`, { accountId });
    return row && progressOf(row);
  }

  /** One committed page (inside its transaction); `finished`: it was the last one. */
  async pageDone(accountId: string, page: { anchor: string; emails: number; finished: boolean }, tx: Tx): Promise<void> {
    await this.sql.execute(
      `UPDATE resync_progress SET anchor = $anchor, pages_done = pages_done + 1, emails_done = emails_done + $emails, updated_at = now(),
              finished_at = CASE WHEN $finished THEN now() ELSE NULL END
        WHERE email_account_id = $accountId`,
      { accountId, ...page },
      tx,
    );
  }

  /** The pass reached the end without a page to commit (an empty mailbox, or the end right after a resume). */
  async finish(accountId: string): Promise<void> {
    await this.sql.execute('UPDATE resync_progress SET finished_at = now(), updated_at = now() WHERE email_account_id = $accountId', { accountId });
  }

  /** The anchor vanished from the server (the email was deleted): the pass goes on from the top. */
  async forgetAnchor(accountId: string): Promise<void> {
    await this.sql.execute('UPDATE resync_progress SET anchor = NULL, updated_at = now() WHERE email_account_id = $accountId', { accountId });
  }

  /** Stored emails of the account without the address lists of migration 0020 (what a resync fills). */
  async emailsWithoutAddresses(accountId: string): Promise<number> {
    const row = await this.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM emails WHERE email_account_id = $accountId AND addresses IS NULL', { accountId });
    return row!.n;
  }
}

function progressOf(row: ProgressRow): ResyncProgress {
  return { anchor: row.anchor, pagesDone: row.pages_done, emailsDone: row.emails_done, startedAt: row.started_at, finishedAt: row.finished_at };
}
