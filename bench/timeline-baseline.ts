/**
 * The baseline of bench/timeline-bench.ts, kept here only to be measured against: the timeline's key
 * statement as release 0.6.0 first had it (src/timelines/timeline-query.ts before the per-contact
 * candidates, docs/adr/0141-timelines.md). Every timeline contact gave up to $window links after the
 * position, merged and cut to $window; when the window was full and the page reached past its last
 * candidate (or was short), the statement ran again with a window four times wider. The company's
 * people were checked inline, its tasks by one OR, the task visibility probe an EXISTS.
 */
import { accountsWith, rightCondition } from '../src/email-accounts/account-rights.js';
import { visibleContactsOf } from '../src/people/person-visibility.js';
import type { Sql } from '../src/db/sql.js';
import { comesAfter, TYPE_RANK, type TimelinePosition } from '../src/timelines/timeline-cursor.js';
import type { TimelineKinds, TimelineSubject } from '../src/timelines/timeline-query.js';

const TASK_VISIBLE = `(t.assignee_id = $userId OR t.created_by = $userId OR (t.conversation_id IS NOT NULL AND EXISTS (
  SELECT 1 FROM email_threads th JOIN email_account_members m ON m.email_account_id = th.email_account_id
   WHERE th.id = t.conversation_id AND m.user_id = $userId AND ${rightCondition('readEmails')})))`;

const COMPANY_PEOPLE = `SELECT p.id FROM people p WHERE p.company_id = $subjectId
  AND EXISTS (SELECT 1 FROM ${visibleContactsOf('p.id')} AND c.last_email_at IS NOT NULL)`;

function contactsOf(subject: TimelineSubject): string {
  if (subject === 'person') return `SELECT c.id FROM ${visibleContactsOf('$subjectId')}`;
  return `SELECT c.id FROM contacts c WHERE c.company_id = $subjectId AND c.email_account_id IN (${accountsWith('readEmails')})
          UNION SELECT c.id FROM (${COMPANY_PEOPLE}) cp CROSS JOIN LATERAL (SELECT c.id FROM ${visibleContactsOf('cp.id')}) c`;
}

function after(position: TimelinePosition | undefined, rank: number, at: string, id: string): string {
  if (!position) return '';
  if (rank > position.rank) return `AND ${at} <= $cAt::timestamptz`;
  if (rank < position.rank) return `AND ${at} < $cAt::timestamptz`;
  return `AND ${at} <= $cAt::timestamptz AND (${at} < $cAt::timestamptz OR ${id} > $cId::uuid)`;
}

const owned = (alias: string) => `(${alias}.email_account_id IN (SELECT m.email_account_id FROM email_account_members m WHERE m.user_id = $userId AND m.role = 'owner'))`;
const PREFERRED = `(o.date > e.date OR (o.date = e.date AND (${owned('o')} > ${owned('e')} OR (${owned('o')} = ${owned('e')} AND o.id < e.id))))`;
const AT_TEXT = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const TASK_AT = "CASE WHEN t.status = 'done' THEN t.completed_at ELSE t.due_at END";

function oldKeysQuery(subject: TimelineSubject, kinds: TimelineKinds, position?: TimelinePosition): string {
  const none = (rank: number) => `SELECT ${rank} AS rank, NULL::timestamptz AS at, NULL::uuid AS id WHERE false`;
  const tasksOf = subject === 'person' ? 't.person_id = $subjectId' : `(t.company_id = $subjectId OR t.person_id IN (${COMPANY_PEOPLE}))`;
  const emails = kinds.emails
    ? `SELECT ${TYPE_RANK.email} AS rank, e.date AS at, e.id FROM cand c JOIN emails e ON e.id = c.email_id
        WHERE e.message_id IS NULL OR NOT EXISTS (
          SELECT 1 FROM emails o JOIN email_contacts ol ON ol.email_id = o.id JOIN tc ON tc.id = ol.contact_id
           WHERE o.message_id = e.message_id AND o.id <> e.id AND o.date IS NOT NULL AND ${PREFERRED})`
    : none(TYPE_RANK.email);
  const tasks = kinds.tasks
    ? `(SELECT ${TYPE_RANK.task} AS rank, ${TASK_AT} AS at, t.id FROM tasks t
         WHERE ${tasksOf} AND ${TASK_VISIBLE} ${after(position, TYPE_RANK.task, `(${TASK_AT})`, 't.id')}
         ORDER BY 2 DESC, t.id LIMIT $need)`
    : none(TYPE_RANK.task);
  const followUps = kinds.followUps
    ? `(SELECT ${TYPE_RANK.follow_up} AS rank, f.due_at AS at, f.id FROM follow_ups f JOIN tc ON tc.id = f.contact_id
         WHERE f.user_id = $userId ${after(position, TYPE_RANK.follow_up, 'f.due_at', 'f.id')}
         ORDER BY f.due_at DESC, f.id LIMIT $need)`
    : none(TYPE_RANK.follow_up);
  const candidates = kinds.emails
    ? `SELECT l.email_id, l.email_date FROM tc CROSS JOIN LATERAL (
         SELECT l.email_id, l.email_date FROM email_contacts l
          WHERE l.contact_id = tc.id AND l.email_date IS NOT NULL ${after(position, TYPE_RANK.email, 'l.email_date', 'l.email_id')}
          ORDER BY l.email_date DESC, l.email_id LIMIT $window) l
        GROUP BY l.email_id, l.email_date ORDER BY l.email_date DESC, l.email_id LIMIT $window`
    : 'SELECT NULL::uuid AS email_id, NULL::timestamptz AS email_date WHERE false';
  return `WITH tc AS MATERIALIZED (${contactsOf(subject)}),
    cand AS MATERIALIZED (${candidates}),
    items AS (${emails} UNION ALL ${tasks} UNION ALL ${followUps})
    SELECT k.candidates, k.last_at, k.last_id, i.rank, ${AT_TEXT('i.at')} AS at, i.id
      FROM (SELECT count(*)::int AS candidates,
                   (SELECT ${AT_TEXT('c.email_date')} FROM cand c ORDER BY c.email_date, c.email_id DESC LIMIT 1) AS last_at,
                   (SELECT c.email_id FROM cand c ORDER BY c.email_date, c.email_id DESC LIMIT 1) AS last_id FROM cand) k
      LEFT JOIN LATERAL (SELECT * FROM items ORDER BY at DESC, rank, id LIMIT $need) i ON true
     ORDER BY i.at DESC, i.rank, i.id`;
}

interface OldKeyRow {
  candidates: number;
  last_at: string | null;
  last_id: string | null;
  rank: number | null;
  at: string | null;
  id: string | null;
}

/** The old TimelineRepository.keys: the statement above, widened four times over while the page reached past the window. */
export async function oldTimelineKeys(
  sql: Sql,
  userId: string,
  of: { subject: TimelineSubject; subjectId: string; kinds: TimelineKinds },
  need: number,
  position?: TimelinePosition,
): Promise<{ keys: TimelinePosition[]; statements: number }> {
  const text = oldKeysQuery(of.subject, of.kinds, position);
  const bind = { userId, subjectId: of.subjectId, need, ...(position ? { cAt: position.at, cId: position.id } : {}) };
  for (let window = need, statements = 1; ; window *= 4, statements++) {
    const rows = await sql.select<OldKeyRow>(text, { ...bind, window });
    const keys = rows.filter((r) => r.id !== null).map((r) => ({ at: r.at!, rank: r.rank!, id: r.id! }));
    const first = rows[0];
    if (!(first !== undefined && first.candidates >= window && first.last_at !== null)) return { keys, statements };
    const reach = keys[need - 1];
    if (reach && !comesAfter(reach, { at: first.last_at, rank: 0, id: first.last_id! })) return { keys, statements };
  }
}
