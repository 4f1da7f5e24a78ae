/**
 * The SQL of a timeline (docs/adr/0141-timelines.md): the emails, tasks and follow-ups of a person or a
 * company as the caller sees them, newest first, in one order (at DESC, type rank, id).
 *
 * Who sees what is the owning areas' rule, reused: the person's contacts in mailboxes the caller may
 * read (person-visibility.ts), the company's sight (company-visibility.ts), the tasks the caller sees
 * (task-query.ts), the caller's own follow-ups.
 *
 * Emails: each timeline contact gives its first $per links after the position along
 * email_contacts_contact_date_idx (contact_id, email_date DESC, email_id), the newest of all of them are
 * the candidates: a cost that depends on the page and the number of contacts, not on the depth (a
 * keyset) nor on the size of a mailbox. The statement answers the bound up to which the candidates
 * are complete, and the repository runs it again with more only when the page reaches past it
 * (TimelineRepository.keys). A message held by several mailboxes the caller reads is shown once: the
 * copy no other copy in the timeline is preferred to (newer, then in a mailbox the caller owns, then
 * the lowest id), a rule of the copies alone, so every page agrees on it.
 */
import { accessToCompany } from '../companies/company-visibility.js';
import { accountsWith } from '../email-accounts/account-rights.js';
import { seesPerson, visibleContactsOf } from '../people/person-visibility.js';
import { taskVisible } from '../tasks/task-query.js';
import type { TaskLinkType } from '../tasks/task-records.js';
import { TYPE_RANK, type TimelinePosition } from './timeline-cursor.js';

export type TimelineSubject = 'person' | 'company';

/** Which kinds of item the caller may get (an API token without the scope of a kind gets none of it). */
export interface TimelineKinds {
  emails: boolean;
  tasks: boolean;
  followUps: boolean;
}

/**
 * The people of the company `$subjectId` as the caller sees them (the people list's companyId rule):
 * filed under it (people_company_idx) and met in mail, checked per person. Materialized, so that the
 * planner cannot turn the check into one over every contact with mail.
 */
const COMPANY_PEOPLE = `SELECT cp.id FROM (SELECT p.id FROM people p WHERE p.company_id = $subjectId OFFSET 0) cp
  WHERE EXISTS (SELECT 1 FROM ${visibleContactsOf('cp.id')} AND c.last_email_at IS NOT NULL)`;

/** The timeline's contacts (`id`): the person's visible contacts; the company's contacts and its people's, in readable mailboxes. */
function contactsOf(subject: TimelineSubject): string {
  if (subject === 'person') return `SELECT c.id FROM ${visibleContactsOf('$subjectId')}`;
  return `SELECT c.id FROM contacts c WHERE c.company_id = $subjectId AND c.email_account_id IN (${accountsWith('readEmails')})
          UNION SELECT c.id FROM cp CROSS JOIN LATERAL (SELECT c.id FROM ${visibleContactsOf('cp.id')}) c`;
}

/** The caller sees the subject (else 404, no existence leak). */
export function subjectAccess(subject: TimelineSubject): string {
  return subject === 'person' ? `SELECT ${seesPerson('$subjectId')} AS seen` : `SELECT ${accessToCompany()} IS NOT NULL AS seen`;
}

/**
 * The links the tasks of a subject's timeline have (tasksOf, right below: the two change together):
 * statements over them plan only these links' rules, and the items' statement leaves out a task of
 * any other link rather than show it without its link.
 */
export const TIMELINE_TASK_LINKS: Record<TimelineSubject, readonly TaskLinkType[]> = { person: ['person'], company: ['company', 'person'] };

/** The tasks `t` of the subject: linked to it, or (a company) to one of its people; each set from its own index. */
function tasksOf(subject: TimelineSubject): string {
  return subject === 'person'
    ? 't.person_id = $subjectId'
    : 't.id IN (SELECT x.id FROM tasks x WHERE x.company_id = $subjectId UNION SELECT x.id FROM cp JOIN tasks x ON x.person_id = cp.id)';
}

/** Rows of a source of rank `rank` that come after the position (bind $cAt, $cRank, $cId), for its at and id columns. */
function after(position: TimelinePosition | undefined, rank: number, at: string, id: string): string {
  if (!position) return '';
  if (rank > position.rank) return `AND ${at} <= $cAt::timestamptz`;
  if (rank < position.rank) return `AND ${at} < $cAt::timestamptz`;
  return `AND ${at} <= $cAt::timestamptz AND (${at} < $cAt::timestamptz OR ${id} > $cId::uuid)`;
}

const owned = (alias: string) => `(${alias}.email_account_id IN (SELECT m.email_account_id FROM email_account_members m WHERE m.user_id = $userId AND m.role = 'owner'))`;

/** Copy `o` of the same message is preferred to `e`: newer, then in a mailbox the caller owns, then the lower id. */
const PREFERRED = `(o.date > e.date OR (o.date = e.date AND (${owned('o')} > ${owned('e')} OR (${owned('o')} = ${owned('e')} AND o.id < e.id))))`;

const AT_TEXT = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const TASK_AT = "CASE WHEN t.status = 'done' THEN t.completed_at ELSE t.due_at END";

/**
 * The page's positions: up to $need items after the position (or from the top), and the bound up to
 * which the email candidates are complete (null when nothing was cut off), for the widening test of
 * TimelineRepository.keys.
 *
 * Each timeline contact gives its first $per links (at least 8 and half of $need, or three times its
 * share of $need when that is more, times $grow), the newest $win of all of them (one and a half times
 * $need, times $grow) are the candidates. Half a page per contact lets one contact that holds much of
 * the mail fill its part of a page, and half a page more in the window lets a message held by two
 * mailboxes count once, without a second run in either case (ADR 0173). What was cut off sorts
 * after the bound: the first, in the timeline's order, of each cut-off contact's last link and the
 * window's last.
 */
export function timelineKeysQuery(subject: TimelineSubject, kinds: TimelineKinds, position?: TimelinePosition): string {
  const none = (rank: number) => `SELECT ${rank} AS rank, NULL::timestamptz AS at, NULL::uuid AS id WHERE false`;
  const emails = kinds.emails
    ? `SELECT ${TYPE_RANK.email} AS rank, e.date AS at, e.id FROM cand c JOIN emails e ON e.id = c.email_id
        WHERE e.message_id IS NULL OR NOT EXISTS (
          SELECT 1 FROM emails o JOIN email_contacts ol ON ol.email_id = o.id JOIN tc ON tc.id = ol.contact_id
           WHERE o.message_id = e.message_id AND o.id <> e.id AND o.date IS NOT NULL AND ${PREFERRED})`
    : none(TYPE_RANK.email);
  const tasks = kinds.tasks
    ? `(SELECT ${TYPE_RANK.task} AS rank, ${TASK_AT} AS at, t.id FROM tasks t
         WHERE ${tasksOf(subject)} AND ${taskVisible(TIMELINE_TASK_LINKS[subject])} ${after(position, TYPE_RANK.task, `(${TASK_AT})`, 't.id')}
         ORDER BY 2 DESC, t.id LIMIT $need)`
    : none(TYPE_RANK.task);
  const followUps = kinds.followUps
    ? `(SELECT ${TYPE_RANK.follow_up} AS rank, f.due_at AS at, f.id FROM follow_ups f JOIN tc ON tc.id = f.contact_id
         WHERE f.user_id = $userId ${after(position, TYPE_RANK.follow_up, 'f.due_at', 'f.id')}
         ORDER BY f.due_at DESC, f.id LIMIT $need)`
    : none(TYPE_RANK.follow_up);
  const links = kinds.emails
    ? `SELECT l.email_id, l.email_date, l.n FROM tc CROSS JOIN LATERAL (
         SELECT l.email_id, l.email_date, row_number() OVER (ORDER BY l.email_date DESC, l.email_id) AS n FROM (
           SELECT l.email_id, l.email_date FROM email_contacts l
            WHERE l.contact_id = tc.id AND l.email_date IS NOT NULL ${after(position, TYPE_RANK.email, 'l.email_date', 'l.email_id')}
            ORDER BY l.email_date DESC, l.email_id LIMIT (SELECT per FROM sizes)) l) l`
    : 'SELECT NULL::uuid AS email_id, NULL::timestamptz AS email_date, 0::bigint AS n WHERE false';
  const people = subject === 'company' ? `cp AS MATERIALIZED (${COMPANY_PEOPLE}),` : '';
  return `WITH ${people} tc AS MATERIALIZED (${contactsOf(subject)}),
    sizes AS MATERIALIZED (SELECT greatest(8, ceil($need / 2.0), ceil(3.0 * $need / greatest(count(*), 1)))::int * $grow AS per, ceil(1.5 * $need)::int * $grow AS win FROM tc),
    raw AS MATERIALIZED (${links}),
    top AS MATERIALIZED (SELECT r.email_id, r.email_date FROM raw r ORDER BY r.email_date DESC, r.email_id LIMIT (SELECT win FROM sizes)),
    cand AS MATERIALIZED (SELECT DISTINCT t.email_id, t.email_date FROM top t),
    cut AS (SELECT r.email_date, r.email_id FROM raw r WHERE r.n = (SELECT per FROM sizes)
            UNION ALL (SELECT t.email_date, t.email_id FROM top t WHERE (SELECT count(*) FROM raw) > (SELECT win FROM sizes)
                        ORDER BY t.email_date, t.email_id DESC LIMIT 1)),
    items AS (${emails} UNION ALL ${tasks} UNION ALL ${followUps})
    SELECT k.bound_at, k.bound_id, i.rank, ${AT_TEXT('i.at')} AS at, i.id
      FROM (SELECT (SELECT ${AT_TEXT('c.email_date')} FROM cut c ORDER BY c.email_date DESC, c.email_id LIMIT 1) AS bound_at,
                   (SELECT c.email_id FROM cut c ORDER BY c.email_date DESC, c.email_id LIMIT 1) AS bound_id) k
      LEFT JOIN LATERAL (SELECT * FROM items ORDER BY at DESC, rank, id LIMIT $need) i ON true
     ORDER BY i.at DESC, i.rank, i.id`;
}

/**
 * The page's emails: what an item shows, its conversation (the thread's row in its mailbox) and every
 * copy of the message in a mailbox the caller may read (`copies`, the shown one included).
 */
export const TIMELINE_EMAILS = `SELECT e.id, e.email_account_id, e.thread_id, e.message_id, e.subject, e."from", e."to", e.date, e.outbound,
    e.has_attachments, left(e.body, 600) AS body_start, th.id AS conversation_id,
    CASE WHEN e.message_id IS NULL THEN jsonb_build_array(jsonb_build_object('id', e.id, 'emailAccountId', e.email_account_id))
         ELSE (SELECT jsonb_agg(jsonb_build_object('id', o.id, 'emailAccountId', o.email_account_id) ORDER BY o.id) FROM emails o
                WHERE o.message_id = e.message_id AND o.email_account_id IN (${accountsWith('readEmails')})) END AS copies
  FROM emails e LEFT JOIN email_threads th ON th.email_account_id = e.email_account_id AND th.thread_id = e.thread_id
 WHERE e.id = ANY($ids::uuid[]) AND e.email_account_id IN (${accountsWith('readEmails')})`;
