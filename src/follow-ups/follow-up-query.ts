// The SQL text of the follow-ups area, run by FollowUpRepository (see ADR 0119).

/** The list's status filter (GET /api/follow-ups?status=). */
export const FOLLOW_UP_STATUSES = ['due', 'upcoming', 'all'] as const;
export type FollowUpStatusFilter = (typeof FOLLOW_UP_STATUSES)[number];

/**
 * Whether email `e` came from contact `c`: an address of its From header is the contact's address
 * (the sync keeps the headers as lists since migration 0020; older rows have only the display text).
 */
const FROM_CONTACT = `(CASE WHEN jsonb_typeof(e.addresses->'from') = 'array'
         THEN EXISTS (SELECT 1 FROM jsonb_array_elements(e.addresses->'from') x WHERE lower(x->>'email') = c.email)
         ELSE e.contact_id = c.id AND (lower(e."from") = c.email OR lower(e."from") LIKE '%<' || c.email || '>')
       END)`;

/**
 * Follow-up `f` of contact `c` is answered: where its owner may read the account's emails (member row
 * `m`), an email linked to the contact, from the contact, dated after the follow-up was last set. The
 * links of one contact are an index range in date order (email_contacts_contact_date_idx), so this
 * reads the contact's mail since then, never the account's.
 */
export const ANSWERED = `(m.can_read AND EXISTS (
    SELECT 1 FROM email_contacts l JOIN emails e ON e.id = l.email_id
     WHERE l.contact_id = f.contact_id AND l.email_date > f.updated_at AND ${FROM_CONTACT}))`;

/**
 * The follow-ups `f` of `$userId` on contacts they may see now: the contact `c` and the caller's
 * membership `m` of its account (any role: a follow-up is the caller's own, not a change of the contact).
 */
const VISIBLE = `follow_ups f
  JOIN contacts c ON c.id = f.contact_id
  JOIN email_account_members m ON m.email_account_id = c.email_account_id AND m.user_id = f.user_id`;

const STATUS_CONDITION: Record<FollowUpStatusFilter, string> = {
  due: 'AND f.due_at <= now()',
  upcoming: 'AND f.due_at > now()',
  all: '',
};

export const FOLLOW_UP_COLUMNS = `f.id, f.contact_id, f.due_at, f.note, f.notified_at, f.created_at, f.updated_at,
       c.email_account_id, c.email AS contact_email, c.name AS contact_name,
       (f.due_at <= now()) AS is_due, ${ANSWERED} AS answered`;

/** One page of the caller's visible follow-ups, due order (the oldest due first), and their count. */
export function followUpListQuery(status: FollowUpStatusFilter, byContact = false) {
  const where = `WHERE f.user_id = $userId ${STATUS_CONDITION[status]}${byContact ? ' AND f.contact_id = $contactId' : ''}`;
  return {
    pageSql: `SELECT ${FOLLOW_UP_COLUMNS} FROM ${VISIBLE} ${where} ORDER BY f.due_at, f.id LIMIT $limit OFFSET $offset`,
    countSql: `SELECT count(*)::int AS total FROM ${VISIBLE} ${where}`,
  };
}

/** The caller's follow-ups of `$ids` on contacts they may see now (a timeline's page, src/timelines). */
export const FOLLOW_UPS_BY_IDS = `SELECT ${FOLLOW_UP_COLUMNS} FROM ${VISIBLE} WHERE f.user_id = $userId AND f.id = ANY($ids::uuid[])`;

/** The caller's follow-up of one contact, while they may see the contact. */
export const ONE_FOLLOW_UP = `SELECT ${FOLLOW_UP_COLUMNS} FROM ${VISIBLE} WHERE f.user_id = $userId AND f.contact_id = $contactId`;

/**
 * Sets (or replaces) the caller's follow-up of a contact: a PUT is a new reminder, so it is unclaimed
 * again (notified_at NULL) and its "answered" counts from now. xmax = 0 tells an insert from an update.
 */
export const UPSERT = `INSERT INTO follow_ups (user_id, contact_id, due_at, note)
  VALUES ($userId, $contactId, $dueAt, $note)
  ON CONFLICT (user_id, contact_id) DO UPDATE
     SET due_at = EXCLUDED.due_at, note = EXCLUDED.note, notified_at = NULL, updated_at = now()
  RETURNING (xmax = 0) AS created`;

/**
 * The due job's claim (one statement, ADR 0119): up to $batch unclaimed follow-ups whose time came,
 * locked with SKIP LOCKED so that instances claiming at once take disjoint rows, stamped notified_at
 * (a row another instance claimed and committed meanwhile no longer matches `notified_at IS NULL`
 * when re-checked), and for each one still visible to its owner and not answered, a follow_up.due
 * event in the outbox, addressed to the owner (events.user_id). The event and the claim commit
 * together: the event is written exactly once, and every instance's hub delivers it.
 */
export const CLAIM_DUE = `WITH due AS (
    SELECT f.id FROM follow_ups f
     WHERE f.notified_at IS NULL AND f.due_at <= now()
     ORDER BY f.due_at LIMIT $batch
     FOR UPDATE SKIP LOCKED
  ), claimed AS (
    UPDATE follow_ups f SET notified_at = now() FROM due
     WHERE f.id = due.id AND f.notified_at IS NULL
    RETURNING f.id, f.user_id, f.contact_id, f.due_at, f.updated_at
  ), sent AS (
    INSERT INTO events (type, email_account_id, user_id, payload)
    SELECT 'follow_up.due', c.email_account_id, f.user_id,
           jsonb_build_object('followUpId', f.id, 'contactId', f.contact_id, 'emailAccountId', c.email_account_id,
                              'dueAt', to_char(f.due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
      FROM claimed f
      JOIN contacts c ON c.id = f.contact_id
      JOIN email_account_members m ON m.email_account_id = c.email_account_id AND m.user_id = f.user_id
     WHERE NOT ${ANSWERED}
    RETURNING id
  )
  SELECT (SELECT count(*) FROM claimed)::int AS claimed, (SELECT count(*) FROM sent)::int AS sent`;
