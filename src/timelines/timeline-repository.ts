import type { Sql } from '../db/sql.js';
import { comesAfter, type TimelinePosition } from './timeline-cursor.js';
import { subjectAccess, TIMELINE_EMAILS, timelineKeysQuery, type TimelineKinds, type TimelineSubject } from './timeline-query.js';
import type { TimelineEmailRecord } from './timeline-records.js';

/** How far the email candidates grow when cut off before the page was full. */
const WIDEN = 4;

interface KeyRow {
  bound_at: string | null;
  bound_id: string | null;
  rank: number | null;
  at: string | null;
  id: string | null;
}

interface EmailRow {
  id: string;
  email_account_id: string;
  thread_id: string | null;
  message_id: string | null;
  subject: string | null;
  from: string | null;
  to: string | null;
  date: Date;
  outbound: boolean;
  has_attachments: boolean;
  body_start: string | null;
  conversation_id: string | null;
  copies: Array<{ id: string; emailAccountId: string }>;
}

/** The timelines' reads (timeline-query.ts); one statement at a time, as every request (ADR 0121). */
export class TimelineRepository {
  constructor(private readonly sql: Sql) {}

  async sees(userId: string, subject: TimelineSubject, subjectId: string): Promise<boolean> {
    const row = await this.sql.one<{ seen: boolean | null }>(subjectAccess(subject), { userId, subjectId, companyId: subjectId });
    return row?.seen === true;
  }

  /**
   * Up to `need` positions after `position` (or from the top). The email candidates are complete up to
   * the bound the statement answers (timelineKeysQuery): when the page reaches past it, or is short
   * while something was cut off, the statement runs again with four times the candidates.
   */
  async keys(userId: string, of: { subject: TimelineSubject; subjectId: string; kinds: TimelineKinds }, need: number, position?: TimelinePosition): Promise<TimelinePosition[]> {
    const { subject, subjectId, kinds } = of;
    const sql = timelineKeysQuery(subject, kinds, position);
    const bind = { userId, subjectId, need, ...(position ? { cAt: position.at, cId: position.id } : {}) };
    for (let grow = 1; ; grow *= WIDEN) {
      const rows = await this.sql.select<KeyRow>(sql, { ...bind, grow });
      const items = rows.filter((r) => r.id !== null).map((r) => ({ at: r.at!, rank: r.rank!, id: r.id! }));
      const first = rows[0];
      // Nothing cut off: every email after the position was a candidate.
      if (first === undefined || first.bound_at === null || first.bound_id === null) return items;
      // The page is exact when its last item comes no later than the bound (rank 0: an email's own place there).
      const bound: TimelinePosition = { at: first.bound_at, rank: 0, id: first.bound_id };
      const reach = items[need - 1];
      if (reach && !comesAfter(reach, bound)) return items;
    }
  }

  async emails(userId: string, ids: readonly string[]): Promise<Map<string, TimelineEmailRecord>> {
    if (ids.length === 0) return new Map();
    const rows = await this.sql.select<EmailRow>(TIMELINE_EMAILS, { userId, ids });
    return new Map(
      rows.map((r) => [
        r.id,
        {
          id: r.id,
          emailAccountId: r.email_account_id,
          conversationId: r.conversation_id,
          threadId: r.thread_id,
          messageId: r.message_id,
          subject: r.subject,
          from: r.from,
          to: r.to,
          date: r.date,
          direction: r.outbound ? 'outbound' : 'inbound',
          hasAttachments: r.has_attachments,
          bodyStart: r.body_start,
          copies: r.copies,
        },
      ]),
    );
  }
}
