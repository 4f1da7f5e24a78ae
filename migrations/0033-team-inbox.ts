import type { QueryInterface, Transaction } from 'sequelize';

/**
 * The team inbox (issue 45, docs/adr/0129-team-inbox.md): conversations are the rows of email_threads
 * (migration 0028, one per account and JMAP thread), which gain
 *
 * - `id`: the conversation's id in the API;
 * - `message_count`: its dated emails, kept by the same statement triggers as the rest of the row, in the
 *   writer's transaction (an insert adds the page's emails of the thread, a delete or a change of a
 *   thread's facts recomputes the thread);
 * - `last_message_at`: the newest email either way (generated), the list's order;
 * - `status` (open | done) and `assignee_id`: set by staff. Newer inbound mail reopens a done thread
 *   (in the insert trigger, so no writer can forget it); `awaiting` now also needs `open`, so done takes
 *   the thread off awaiting-reply everywhere.
 *
 * email_reads: which emails each member read in the CRM (per member: Jana's read leaves it unread for
 * Peter). conversation_comments: internal notes on a thread, never written to the mail server.
 * Both go with their thread, email and author (cascades), so an erasure or a deleted email leaves
 * nothing behind.
 *
 * The sync's status events: only state changes a person acts on (a first sync starting and ending, the
 * first failure, a recovery, an auth failure); a poll of a healthy account that goes ok -> syncing -> ok
 * is no news (issue 45: 93 % of all stream events were such pairs).
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    const path = `${quoteIdent(await scalar(qi, 'SELECT current_schema() AS value', transaction))}, pg_temp`;
    await qi.sequelize.query(upSql(path), { transaction });
  });
}

const upSql = (path: string) => `
    ALTER TABLE email_threads
      ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid(),
      ADD COLUMN message_count integer NOT NULL DEFAULT 0,
      ADD COLUMN status text NOT NULL DEFAULT 'open' CONSTRAINT email_threads_status_check CHECK (status IN ('open', 'done')),
      ADD COLUMN assignee_id uuid REFERENCES users(id) ON DELETE SET NULL,
      ADD COLUMN status_changed_at timestamptz,
      ADD COLUMN last_message_at timestamptz GENERATED ALWAYS AS (GREATEST(last_inbound_at, last_outbound_at)) STORED;
    ALTER TABLE email_threads ADD CONSTRAINT email_threads_id_key UNIQUE (id);
    ALTER TABLE email_threads DROP COLUMN awaiting;
    ALTER TABLE email_threads ADD COLUMN awaiting boolean GENERATED ALWAYS AS (
      status = 'open' AND last_inbound_at IS NOT NULL AND (last_outbound_at IS NULL OR last_outbound_at < last_inbound_at)) STORED;
    CREATE INDEX email_threads_awaiting_idx ON email_threads (email_account_id, last_inbound_at DESC, last_inbound_email_id) WHERE awaiting;
    -- The conversation list per account, newest activity first: all, or one status.
    CREATE INDEX email_threads_activity_idx ON email_threads (email_account_id, last_message_at DESC, id);
    CREATE INDEX email_threads_status_activity_idx ON email_threads (email_account_id, status, last_message_at DESC, id);
    CREATE INDEX email_threads_assignee_idx ON email_threads (assignee_id, last_message_at DESC, id) WHERE assignee_id IS NOT NULL;

    UPDATE email_threads t SET message_count = c.n
      FROM (SELECT e.email_account_id, e.thread_id, count(*)::int AS n FROM emails e
             WHERE e.thread_id IS NOT NULL AND e.date IS NOT NULL GROUP BY 1, 2) c
     WHERE c.email_account_id = t.email_account_id AND c.thread_id = t.thread_id;

    -- Inserted emails fold into their threads: the count grows, newest inbound (date, then id) and newest
    -- outbound win, and an inbound email newer than the thread's newest reopens a done thread.
    CREATE OR REPLACE FUNCTION crm_email_threads_add() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
    BEGIN
      INSERT INTO email_threads AS t (email_account_id, thread_id, last_inbound_at, last_inbound_email_id, last_outbound_at, message_count)
      SELECT n.email_account_id, n.thread_id,
             max(n.date) FILTER (WHERE NOT n.outbound),
             (array_agg(n.id ORDER BY n.date DESC, n.id DESC) FILTER (WHERE NOT n.outbound))[1],
             max(n.date) FILTER (WHERE n.outbound),
             count(*)::int
        FROM new_emails n
       WHERE n.thread_id IS NOT NULL AND n.date IS NOT NULL
       GROUP BY n.email_account_id, n.thread_id
       ORDER BY n.email_account_id, n.thread_id
      ON CONFLICT (email_account_id, thread_id) DO UPDATE SET
        last_inbound_email_id = CASE WHEN ${NEWER_INBOUND} THEN EXCLUDED.last_inbound_email_id ELSE t.last_inbound_email_id END,
        last_inbound_at = CASE WHEN ${NEWER_INBOUND} THEN EXCLUDED.last_inbound_at ELSE t.last_inbound_at END,
        last_outbound_at = GREATEST(t.last_outbound_at, EXCLUDED.last_outbound_at),
        message_count = t.message_count + EXCLUDED.message_count,
        status = CASE WHEN t.status = 'done' AND ${NEWER_INBOUND} THEN 'open' ELSE t.status END,
        status_changed_at = CASE WHEN t.status = 'done' AND ${NEWER_INBOUND} THEN now() ELSE t.status_changed_at END;
      RETURN NULL;
    END $$;

    -- The threads named, recomputed from their emails (rows locked first, in key order: see 0028).
    -- Status and assignee stay: a deletion never reopens a thread.
    CREATE OR REPLACE FUNCTION crm_email_threads_refresh(accounts uuid[], threads text[]) RETURNS void LANGUAGE plpgsql SET search_path = ${path} AS $$
    BEGIN
      PERFORM 1 FROM email_threads t
        JOIN unnest(accounts, threads) AS k(email_account_id, thread_id) USING (email_account_id, thread_id)
       ORDER BY t.email_account_id, t.thread_id FOR UPDATE OF t;
      DELETE FROM email_threads t USING unnest(accounts, threads) AS k(email_account_id, thread_id)
       WHERE t.email_account_id = k.email_account_id AND t.thread_id = k.thread_id
         AND NOT EXISTS (SELECT 1 FROM emails e WHERE e.email_account_id = k.email_account_id AND e.thread_id = k.thread_id AND e.date IS NOT NULL);
      INSERT INTO email_threads AS t (email_account_id, thread_id, last_inbound_at, last_inbound_email_id, last_outbound_at, message_count)
      SELECT k.email_account_id, k.thread_id, s.inbound_at, s.inbound_id, s.outbound_at, s.n
        FROM (SELECT DISTINCT * FROM unnest(accounts, threads) AS u(email_account_id, thread_id)) k
        CROSS JOIN LATERAL (
          SELECT max(e.date) FILTER (WHERE NOT e.outbound) AS inbound_at,
                 (array_agg(e.id ORDER BY e.date DESC, e.id DESC) FILTER (WHERE NOT e.outbound))[1] AS inbound_id,
                 max(e.date) FILTER (WHERE e.outbound) AS outbound_at,
                 count(*)::int AS n
            FROM emails e WHERE e.email_account_id = k.email_account_id AND e.thread_id = k.thread_id AND e.date IS NOT NULL) s
       WHERE s.n > 0
       ORDER BY k.email_account_id, k.thread_id
      ON CONFLICT (email_account_id, thread_id) DO UPDATE SET
        last_inbound_at = EXCLUDED.last_inbound_at, last_inbound_email_id = EXCLUDED.last_inbound_email_id,
        last_outbound_at = EXCLUDED.last_outbound_at, message_count = EXCLUDED.message_count
      WHERE (t.last_inbound_at, t.last_inbound_email_id, t.last_outbound_at, t.message_count)
            IS DISTINCT FROM (EXCLUDED.last_inbound_at, EXCLUDED.last_inbound_email_id, EXCLUDED.last_outbound_at, EXCLUDED.message_count);
    END $$;

    CREATE TABLE email_reads (
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      email_id uuid NOT NULL REFERENCES emails(id) ON DELETE CASCADE,
      read_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, email_id)
    );
    CREATE INDEX email_reads_email_idx ON email_reads (email_id);

    CREATE TABLE conversation_comments (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      conversation_id uuid NOT NULL REFERENCES email_threads(id) ON DELETE CASCADE,
      author_id uuid REFERENCES users(id) ON DELETE SET NULL,
      text text NOT NULL CONSTRAINT conversation_comments_text_check CHECK (char_length(text) BETWEEN 1 AND 5000),
      mentions uuid[] NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX conversation_comments_conversation_idx ON conversation_comments (conversation_id, created_at, id);
    CREATE INDEX conversation_comments_author_idx ON conversation_comments (author_id);

    -- A member who can no longer read the mailbox (unshared, canRead off, the account handed over
    -- without them) is nobody's assignee there: whoever removes the share, the assignment goes with it.
    CREATE FUNCTION crm_conversations_unassign() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
    BEGIN
      UPDATE email_threads t SET assignee_id = NULL
        FROM old_rows o
       WHERE t.email_account_id = o.email_account_id AND t.assignee_id = o.user_id
         AND NOT EXISTS (SELECT 1 FROM email_account_members m
                          WHERE m.email_account_id = o.email_account_id AND m.user_id = o.user_id AND m.can_read);
      RETURN NULL;
    END $$;
    CREATE TRIGGER email_account_members_unassign_update AFTER UPDATE ON email_account_members
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION crm_conversations_unassign();
    CREATE TRIGGER email_account_members_unassign_delete AFTER DELETE ON email_account_members
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION crm_conversations_unassign();

    CREATE OR REPLACE FUNCTION crm_events_sync_states() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
    DECLARE
      added bigint;
    BEGIN
      INSERT INTO events (type, email_account_id, payload)
      SELECT 'sync.status', n.email_account_id,
             jsonb_build_object('emailAccountId', n.email_account_id, 'status', n.status, 'lastSuccessAt', n.last_success_at)
        FROM new_rows n JOIN old_rows o ON o.email_account_id = n.email_account_id
       WHERE n.status IS DISTINCT FROM o.status
         AND CASE
               -- A run begins: news only before the first success (the first sync under way).
               WHEN n.status = 'syncing' THEN o.last_success_at IS NULL
               -- A run ends: the first sync done, or a recovery from failures.
               WHEN o.status = 'syncing' AND n.status = 'ok' THEN o.last_success_at IS NULL OR o.consecutive_failures > 0
               -- The first failure in a row, not every further one.
               WHEN o.status = 'syncing' AND n.status = 'error' THEN n.consecutive_failures = 1 OR o.last_success_at IS NULL
               -- Released without a run: back to where it was, news only if the start was.
               WHEN o.status = 'syncing' AND n.status = 'idle' THEN o.last_success_at IS NULL
               ELSE true
             END;
      ${NOTIFY}
    END $$;
  `;

/** As every events trigger of 0021: one wake-up for the listeners (crm_events) per transaction. */
const NOTIFY = `GET DIAGNOSTICS added = ROW_COUNT;
      IF added > 0 THEN
        PERFORM pg_notify('crm_events', '');
      END IF;
      RETURN NULL;`;

/** The inserted page holds an inbound email newer (date, then id) than the thread's newest. */
const NEWER_INBOUND = `(EXCLUDED.last_inbound_at IS NOT NULL
                        AND (t.last_inbound_email_id IS NULL OR t.last_inbound_at IS NULL
                             OR (EXCLUDED.last_inbound_at, EXCLUDED.last_inbound_email_id) > (t.last_inbound_at, t.last_inbound_email_id)))`;

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    const path = `${quoteIdent(await scalar(qi, 'SELECT current_schema() AS value', transaction))}, pg_temp`;
    await qi.sequelize.query(downSql(path), { transaction });
  });
}

const downSql = (path: string) => `
    DROP TRIGGER email_account_members_unassign_update ON email_account_members;
    DROP TRIGGER email_account_members_unassign_delete ON email_account_members;
    DROP FUNCTION crm_conversations_unassign();
    DROP TABLE conversation_comments;
    DROP TABLE email_reads;
    CREATE OR REPLACE FUNCTION crm_events_sync_states() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
    DECLARE
      added bigint;
    BEGIN
      INSERT INTO events (type, email_account_id, payload)
      SELECT 'sync.status', n.email_account_id,
             jsonb_build_object('emailAccountId', n.email_account_id, 'status', n.status, 'lastSuccessAt', n.last_success_at)
        FROM new_rows n JOIN old_rows o ON o.email_account_id = n.email_account_id
       WHERE n.status IS DISTINCT FROM o.status;
      ${NOTIFY}
    END $$;
    ${threadFunctions0028(path)}
    DROP INDEX email_threads_assignee_idx;
    DROP INDEX email_threads_status_activity_idx;
    DROP INDEX email_threads_activity_idx;
    ALTER TABLE email_threads DROP COLUMN awaiting;
    ALTER TABLE email_threads DROP COLUMN last_message_at, DROP COLUMN status_changed_at, DROP COLUMN assignee_id,
      DROP COLUMN status, DROP COLUMN message_count, DROP COLUMN id;
    ALTER TABLE email_threads ADD COLUMN awaiting boolean GENERATED ALWAYS AS (
      last_inbound_at IS NOT NULL AND (last_outbound_at IS NULL OR last_outbound_at < last_inbound_at)) STORED;
    CREATE INDEX email_threads_awaiting_idx ON email_threads (email_account_id, last_inbound_at DESC, last_inbound_email_id) WHERE awaiting;
  `;

/**
 * The thread functions as migration 0028 made them (without count, status or reopen): the down
 * migration's, and bench/conversations-bench.ts's baseline for the write cost.
 */
export const threadFunctions0028 = (path: string) => `
    CREATE OR REPLACE FUNCTION crm_email_threads_add() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
    BEGIN
      INSERT INTO email_threads AS t (email_account_id, thread_id, last_inbound_at, last_inbound_email_id, last_outbound_at)
      SELECT n.email_account_id, n.thread_id,
             max(n.date) FILTER (WHERE NOT n.outbound),
             (array_agg(n.id ORDER BY n.date DESC, n.id DESC) FILTER (WHERE NOT n.outbound))[1],
             max(n.date) FILTER (WHERE n.outbound)
        FROM new_emails n
       WHERE n.thread_id IS NOT NULL AND n.date IS NOT NULL
       GROUP BY n.email_account_id, n.thread_id
       ORDER BY n.email_account_id, n.thread_id
      ON CONFLICT (email_account_id, thread_id) DO UPDATE SET
        last_inbound_email_id = CASE WHEN ${NEWER_INBOUND} THEN EXCLUDED.last_inbound_email_id ELSE t.last_inbound_email_id END,
        last_inbound_at = CASE WHEN ${NEWER_INBOUND} THEN EXCLUDED.last_inbound_at ELSE t.last_inbound_at END,
        last_outbound_at = GREATEST(t.last_outbound_at, EXCLUDED.last_outbound_at)
      WHERE EXCLUDED.last_outbound_at > t.last_outbound_at OR (EXCLUDED.last_outbound_at IS NOT NULL AND t.last_outbound_at IS NULL)
         OR ${NEWER_INBOUND};
      RETURN NULL;
    END $$;
    CREATE OR REPLACE FUNCTION crm_email_threads_refresh(accounts uuid[], threads text[]) RETURNS void LANGUAGE plpgsql SET search_path = ${path} AS $$
    BEGIN
      PERFORM 1 FROM email_threads t
        JOIN unnest(accounts, threads) AS k(email_account_id, thread_id) USING (email_account_id, thread_id)
       ORDER BY t.email_account_id, t.thread_id FOR UPDATE OF t;
      DELETE FROM email_threads t USING unnest(accounts, threads) AS k(email_account_id, thread_id)
       WHERE t.email_account_id = k.email_account_id AND t.thread_id = k.thread_id
         AND NOT EXISTS (SELECT 1 FROM emails e WHERE e.email_account_id = k.email_account_id AND e.thread_id = k.thread_id AND e.date IS NOT NULL);
      INSERT INTO email_threads AS t (email_account_id, thread_id, last_inbound_at, last_inbound_email_id, last_outbound_at)
      SELECT k.email_account_id, k.thread_id, s.inbound_at, s.inbound_id, s.outbound_at
        FROM (SELECT DISTINCT * FROM unnest(accounts, threads) AS u(email_account_id, thread_id)) k
        CROSS JOIN LATERAL (
          SELECT max(e.date) FILTER (WHERE NOT e.outbound) AS inbound_at,
                 (array_agg(e.id ORDER BY e.date DESC, e.id DESC) FILTER (WHERE NOT e.outbound))[1] AS inbound_id,
                 max(e.date) FILTER (WHERE e.outbound) AS outbound_at,
                 count(*) AS n
            FROM emails e WHERE e.email_account_id = k.email_account_id AND e.thread_id = k.thread_id AND e.date IS NOT NULL) s
       WHERE s.n > 0
       ORDER BY k.email_account_id, k.thread_id
      ON CONFLICT (email_account_id, thread_id) DO UPDATE SET
        last_inbound_at = EXCLUDED.last_inbound_at, last_inbound_email_id = EXCLUDED.last_inbound_email_id,
        last_outbound_at = EXCLUDED.last_outbound_at
      WHERE (t.last_inbound_at, t.last_inbound_email_id, t.last_outbound_at)
            IS DISTINCT FROM (EXCLUDED.last_inbound_at, EXCLUDED.last_inbound_email_id, EXCLUDED.last_outbound_at);
    END $$;
`;

async function scalar(qi: QueryInterface, sql: string, transaction: Transaction): Promise<string> {
  const [rows] = await qi.sequelize.query(sql, { transaction });
  return (rows as Array<{ value: string }>)[0].value;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
