import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { offsetOf, type Page, type PageRequest } from '../shared/pagination.js';

export type ScheduledStatus = 'scheduled' | 'sending' | 'sent' | 'failed' | 'cancelled';
export type ScheduledKind = 'new' | 'reply' | 'forward';

export interface ScheduledRecord {
  id: string;
  userId: string;
  emailAccountId: string | null;
  kind: ScheduledKind;
  /** The email answered (reply) or forwarded. */
  emailId: string | null;
  /** The send request as the sender takes it (src/sending/send-request.ts). */
  request: Record<string, unknown>;
  sendAt: Date;
  status: ScheduledStatus;
  messageId: string;
  attempts: number;
  jmapEmailId: string | null;
  submittedAt: Date | null;
  sentAt: Date | null;
  sentEmailId: string | null;
  failureCode: string | null;
  failureMessage: string | null;
  draftId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewScheduled {
  userId: string;
  emailAccountId: string;
  kind: ScheduledKind;
  emailId: string | null;
  request: Record<string, unknown>;
  sendAt: Date;
  messageId: string;
}

/** The end of an attempt (fenced by its number, like webhook deliveries). */
export type AttemptEnd =
  | { status: 'sent'; sentEmailId: string | null }
  | { status: 'failed'; code: string; message: string; draftId: string | null }
  /** Nothing went: tried again at `next`, cancellable meanwhile. */
  | { status: 'scheduled'; next: Date; code: string; message: string }
  /** It may have gone: stays 'sending' (not cancellable) and a recovery checks the mail server at `next`. */
  | { status: 'sending'; next: Date; code: string; message: string };

const COLUMNS = `id, user_id AS "userId", email_account_id AS "emailAccountId", kind, email_id AS "emailId", request, send_at AS "sendAt",
  status, message_id AS "messageId", attempts, jmap_email_id AS "jmapEmailId", submitted_at AS "submittedAt", sent_at AS "sentAt",
  sent_email_id AS "sentEmailId", failure_code AS "failureCode", failure_message AS "failureMessage", draft_id AS "draftId",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/** A row due: scheduled and its time came, or being sent by a holder whose lease ran out (recovery). */
const DUE = `((s.status = 'scheduled' AND s.next_attempt_at <= now()) OR (s.status = 'sending' AND s.lease_until < now() AND s.next_attempt_at <= now()))`;

/** scheduled_emails (migration 0060); the user's queries are scoped by user_id in SQL. */
export class ScheduledEmailRepository {
  constructor(private readonly sql: Sql) {}

  async insert(n: NewScheduled, tx: Tx): Promise<ScheduledRecord> {
    const row = await this.sql.one<ScheduledRecord>(
      `INSERT INTO scheduled_emails (user_id, email_account_id, kind, email_id, request, send_at, next_attempt_at, message_id)
       VALUES ($userId, $emailAccountId, $kind, $emailId, $request::jsonb, $sendAt, $sendAt, $messageId) RETURNING ${COLUMNS}`,
      { ...n, request: JSON.stringify(n.request) },
      tx,
    );
    return row!;
  }

  async list(userId: string, page: PageRequest, status?: ScheduledStatus): Promise<Page<ScheduledRecord>> {
    const filter = status ? 'AND status = $status' : '';
    const items = await this.sql.select<ScheduledRecord>(
      `SELECT ${COLUMNS} FROM scheduled_emails WHERE user_id = $userId ${filter} ORDER BY send_at DESC, id LIMIT $limit OFFSET $offset`,
      { userId, status: status ?? null, limit: page.limit, offset: offsetOf(page) },
    );
    const count = await this.sql.one<{ n: number }>(`SELECT count(*)::int AS n FROM scheduled_emails WHERE user_id = $userId ${filter}`, { userId, status: status ?? null });
    return { items, total: count!.n };
  }

  find(userId: string, id: string, tx?: Tx): Promise<ScheduledRecord | undefined> {
    return this.sql.one<ScheduledRecord>(`SELECT ${COLUMNS} FROM scheduled_emails WHERE id = $id AND user_id = $userId`, { userId, id }, tx);
  }

  /** Cancels it if it is still only scheduled (the claim and this exclude each other on the row); answers the row after. */
  async cancel(userId: string, id: string, tx: Tx): Promise<{ cancelled: boolean; row?: ScheduledRecord }> {
    const row = await this.sql.one<ScheduledRecord>(
      `UPDATE scheduled_emails SET status = 'cancelled', updated_at = now() WHERE id = $id AND user_id = $userId AND status = 'scheduled' RETURNING ${COLUMNS}`,
      { userId, id },
      tx,
    );
    if (row) return { cancelled: true, row };
    return { cancelled: false, row: await this.find(userId, id, tx) };
  }

  /**
   * Leases up to `limit` due rows for `leaseSeconds` (one statement, its own transaction): status
   * 'sending', the attempt counted. SKIP LOCKED lets instances lease disjoint rows at once.
   */
  claimDue(limit: number, leaseSeconds: number): Promise<ScheduledRecord[]> {
    return this.sql.select<ScheduledRecord>(
      `UPDATE scheduled_emails s SET status = 'sending', attempts = s.attempts + 1, lease_until = now() + make_interval(secs => $leaseSeconds), updated_at = now()
        WHERE s.id IN (SELECT s.id FROM scheduled_emails s WHERE ${DUE} ORDER BY s.next_attempt_at LIMIT $limit FOR UPDATE SKIP LOCKED)
       RETURNING ${COLUMNS}`,
      { limit, leaseSeconds },
    );
  }

  setDraft(id: string, draftId: string, tx: Tx): Promise<number> {
    return this.sql.execute('UPDATE scheduled_emails SET draft_id = $draftId, updated_at = now() WHERE id = $id', { id, draftId }, tx);
  }

  /** Renews this attempt's lease; false when the attempt no longer holds the row. */
  async renew(id: string, attempt: number, leaseSeconds: number): Promise<boolean> {
    return (
      (await this.sql.execute(
        `UPDATE scheduled_emails SET lease_until = now() + make_interval(secs => $leaseSeconds) WHERE id = $id AND attempts = $attempt AND status = 'sending'`,
        { id, attempt, leaseSeconds },
      )) === 1
    );
  }

  /** Records the message created on the mail server (before its submission), fenced by the attempt. */
  async recordJmapEmail(id: string, attempt: number, jmapEmailId: string, leaseSeconds: number): Promise<boolean> {
    return (
      (await this.sql.execute(
        `UPDATE scheduled_emails SET jmap_email_id = $jmapEmailId, submitted_at = NULL, lease_until = now() + make_interval(secs => $leaseSeconds)
          WHERE id = $id AND attempts = $attempt AND status = 'sending'`,
        { id, attempt, jmapEmailId, leaseSeconds },
      )) === 1
    );
  }

  /** Right before the submission request: the lease renewed and the time noted, fenced by the attempt. */
  async markSubmitting(id: string, attempt: number, leaseSeconds: number): Promise<boolean> {
    return (
      (await this.sql.execute(
        `UPDATE scheduled_emails SET submitted_at = now(), lease_until = now() + make_interval(secs => $leaseSeconds)
          WHERE id = $id AND attempts = $attempt AND status = 'sending'`,
        { id, attempt, leaseSeconds },
      )) === 1
    );
  }

  /** Ends an attempt, only if it still holds the row; answers whether it did. */
  async end(id: string, attempt: number, e: AttemptEnd, tx?: Tx): Promise<boolean> {
    const binds = {
      id,
      attempt,
      status: e.status,
      sentEmailId: e.status === 'sent' ? e.sentEmailId : null,
      code: e.status === 'sent' ? null : e.code,
      message: e.status === 'sent' ? null : e.message,
      draftId: e.status === 'failed' ? e.draftId : null,
      next: e.status === 'scheduled' || e.status === 'sending' ? e.next : null,
    };
    return (
      (await this.sql.execute(
        `UPDATE scheduled_emails SET status = $status, updated_at = now(),
                lease_until = CASE WHEN $status = 'sending' THEN lease_until ELSE NULL END,
                next_attempt_at = COALESCE($next::timestamptz, next_attempt_at),
                sent_at = CASE WHEN $status = 'sent' THEN now() ELSE sent_at END,
                sent_email_id = COALESCE($sentEmailId::uuid, sent_email_id),
                failure_code = $code, failure_message = $message, draft_id = COALESCE($draftId::uuid, draft_id)
          WHERE id = $id AND attempts = $attempt AND status = 'sending'`,
        binds,
        tx,
      )) === 1
    );
  }

  /** Due rows not leased, the oldest one's wait, and leases that ran out (the job's backlog, ADR 0145). */
  async backlog(): Promise<{ due: number; oldestDueSeconds: number | null; expiredLeases: number }> {
    const row = await this.sql.one<{ due: number; oldest: number | null; expired: number }>(
      `SELECT count(*) FILTER (WHERE ${DUE})::int AS due,
              extract(epoch FROM now() - min(s.next_attempt_at) FILTER (WHERE ${DUE}))::float8 AS oldest,
              count(*) FILTER (WHERE s.status = 'sending' AND s.lease_until < now())::int AS expired
         FROM scheduled_emails s WHERE s.status IN ('scheduled', 'sending')`,
    );
    return { due: row?.due ?? 0, oldestDueSeconds: row?.oldest ?? null, expiredLeases: row?.expired ?? 0 };
  }

  /** Whether the user is disabled (or gone): a disabled user's sends do not go. */
  async userDisabled(userId: string): Promise<boolean> {
    const row = await this.sql.one<{ disabled: boolean }>('SELECT disabled_at IS NOT NULL AS disabled FROM users WHERE id = $userId', { userId });
    return row?.disabled ?? true;
  }

  /** Finished rows older than `days` go (their files went when they finished). */
  pruneFinished(days: number): Promise<number> {
    return this.sql.execute(`DELETE FROM scheduled_emails WHERE status IN ('sent', 'failed', 'cancelled') AND updated_at < now() - make_interval(days => $days)`, { days });
  }
}
