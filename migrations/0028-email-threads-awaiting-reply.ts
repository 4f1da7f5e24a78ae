import type { QueryInterface, Transaction } from 'sequelize';

/**
 * Conversations awaiting a reply (docs/adr/0118-awaiting-reply.md):
 *
 * - emails.outbound: the mailbox itself sent the email (From is the account's own address, or the mail
 *   server has it in the Sent mailbox), as the sync's mapper decides it. Rows stored before are
 *   filled here from their From (the account's address and JMAP account id, as the sync compares);
 *   Sent-mailbox membership was never stored, so a full resync corrects the rest (the sync's upsert
 *   refreshes the column).
 * - email_threads: one row per (account, JMAP thread) with the newest inbound email (date and id) and
 *   the date of the newest outbound one; `awaiting` when the newest dated email is inbound. Kept by
 *   triggers on emails in the writer's own transaction, whoever writes (the sync, the sent writer,
 *   deletions, cascades): inserts fold into the row (one statement per written page); deletes and
 *   the rare update of a thread's facts recompute the affected threads from emails_thread_idx after
 *   locking their rows, so a concurrent writer of the same thread waits instead of being overwritten.
 * - The partial index is the awaiting list per account in date order, read forwards (newest) or
 *   backwards (oldest first).
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    // Trigger functions run with the writer's search_path: each pins the schema's.
    const path = `${quoteIdent(await scalar(qi, 'SELECT current_schema() AS value', transaction))}, pg_temp`;
    await qi.sequelize.query(upSql(path), { transaction });
  });
}

const upSql = (path: string) => `
    ALTER TABLE emails ADD COLUMN outbound boolean NOT NULL DEFAULT false;

    UPDATE emails e SET outbound = true
      FROM email_accounts a
     WHERE a.id = e.email_account_id
       AND (EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(e.addresses->'from') = 'array' THEN e.addresses->'from' ELSE '[]'::jsonb END) x
                     WHERE lower(btrim(x->>'email')) IN (lower(a.email), lower(a.jmap_account_id)))
            OR (e.addresses IS NULL AND lower(coalesce(substring(e."from" FROM '<([^<>]*)>\\s*$'), btrim(e."from"))) IN (lower(a.email), lower(a.jmap_account_id))));

    CREATE TABLE email_threads (
      email_account_id uuid NOT NULL REFERENCES email_accounts(id) ON DELETE CASCADE,
      thread_id text NOT NULL,
      last_inbound_at timestamptz,
      last_inbound_email_id uuid REFERENCES emails(id) ON DELETE SET NULL,
      last_outbound_at timestamptz,
      awaiting boolean GENERATED ALWAYS AS (
        last_inbound_at IS NOT NULL AND (last_outbound_at IS NULL OR last_outbound_at < last_inbound_at)) STORED,
      PRIMARY KEY (email_account_id, thread_id)
    );
    CREATE INDEX email_threads_awaiting_idx ON email_threads (email_account_id, last_inbound_at DESC, last_inbound_email_id) WHERE awaiting;
    CREATE INDEX email_threads_inbound_email_idx ON email_threads (last_inbound_email_id);

    -- Inserted emails fold into their threads: newest inbound (date, then id) and newest outbound win.
    CREATE FUNCTION crm_email_threads_add() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
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
        last_inbound_email_id = CASE WHEN EXCLUDED.last_inbound_at IS NOT NULL
                                      AND (t.last_inbound_email_id IS NULL OR t.last_inbound_at IS NULL
                                           OR (EXCLUDED.last_inbound_at, EXCLUDED.last_inbound_email_id) > (t.last_inbound_at, t.last_inbound_email_id))
                                     THEN EXCLUDED.last_inbound_email_id ELSE t.last_inbound_email_id END,
        last_inbound_at = CASE WHEN EXCLUDED.last_inbound_at IS NOT NULL
                                AND (t.last_inbound_email_id IS NULL OR t.last_inbound_at IS NULL
                                     OR (EXCLUDED.last_inbound_at, EXCLUDED.last_inbound_email_id) > (t.last_inbound_at, t.last_inbound_email_id))
                               THEN EXCLUDED.last_inbound_at ELSE t.last_inbound_at END,
        last_outbound_at = GREATEST(t.last_outbound_at, EXCLUDED.last_outbound_at)
      WHERE EXCLUDED.last_outbound_at > t.last_outbound_at OR (EXCLUDED.last_outbound_at IS NOT NULL AND t.last_outbound_at IS NULL)
         OR (EXCLUDED.last_inbound_at IS NOT NULL
             AND (t.last_inbound_email_id IS NULL OR t.last_inbound_at IS NULL
                  OR (EXCLUDED.last_inbound_at, EXCLUDED.last_inbound_email_id) > (t.last_inbound_at, t.last_inbound_email_id)));
      RETURN NULL;
    END $$;

    -- The threads named, recomputed from their emails. Their rows are locked first (in key order) and
    -- only then read in a new statement: it sees every email a writer that held the lock committed.
    CREATE FUNCTION crm_email_threads_refresh(accounts uuid[], threads text[]) RETURNS void LANGUAGE plpgsql SET search_path = ${path} AS $$
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

    CREATE FUNCTION crm_email_threads_remove() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
    DECLARE
      accounts uuid[];
      threads text[];
    BEGIN
      SELECT array_agg(g.email_account_id), array_agg(g.thread_id) INTO accounts, threads
        FROM (SELECT DISTINCT o.email_account_id, o.thread_id FROM gone_emails o WHERE o.thread_id IS NOT NULL) g;
      IF accounts IS NOT NULL THEN
        PERFORM crm_email_threads_refresh(accounts, threads);
      END IF;
      RETURN NULL;
    END $$;

    CREATE FUNCTION crm_email_threads_change() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
    BEGIN
      PERFORM crm_email_threads_refresh(ARRAY[OLD.email_account_id, NEW.email_account_id], ARRAY[OLD.thread_id, NEW.thread_id])
        WHERE OLD.thread_id IS NOT NULL OR NEW.thread_id IS NOT NULL;
      RETURN NULL;
    END $$;

    CREATE TRIGGER emails_threads_add AFTER INSERT ON emails
      REFERENCING NEW TABLE AS new_emails
      FOR EACH STATEMENT EXECUTE FUNCTION crm_email_threads_add();
    CREATE TRIGGER emails_threads_remove AFTER DELETE ON emails
      REFERENCING OLD TABLE AS gone_emails
      FOR EACH STATEMENT EXECUTE FUNCTION crm_email_threads_remove();
    -- Only an update of what the thread state is made of: the sync's refresh of the read state and
    -- the ownership transfer's user_id never get here.
    CREATE TRIGGER emails_threads_change AFTER UPDATE ON emails
      FOR EACH ROW WHEN (OLD.thread_id IS DISTINCT FROM NEW.thread_id OR OLD.date IS DISTINCT FROM NEW.date
                         OR OLD.outbound IS DISTINCT FROM NEW.outbound OR OLD.email_account_id IS DISTINCT FROM NEW.email_account_id)
      EXECUTE FUNCTION crm_email_threads_change();

    INSERT INTO email_threads (email_account_id, thread_id, last_inbound_at, last_inbound_email_id, last_outbound_at)
    SELECT e.email_account_id, e.thread_id,
           max(e.date) FILTER (WHERE NOT e.outbound),
           (array_agg(e.id ORDER BY e.date DESC, e.id DESC) FILTER (WHERE NOT e.outbound))[1],
           max(e.date) FILTER (WHERE e.outbound)
      FROM emails e
     WHERE e.thread_id IS NOT NULL AND e.date IS NOT NULL
     GROUP BY e.email_account_id, e.thread_id;
  `;

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    await qi.sequelize.query(DOWN_SQL, { transaction });
  });
}

const DOWN_SQL = `
    DROP TRIGGER emails_threads_change ON emails;
    DROP TRIGGER emails_threads_remove ON emails;
    DROP TRIGGER emails_threads_add ON emails;
    DROP FUNCTION crm_email_threads_change();
    DROP FUNCTION crm_email_threads_remove();
    DROP FUNCTION crm_email_threads_refresh(uuid[], text[]);
    DROP FUNCTION crm_email_threads_add();
    DROP TABLE email_threads;
    ALTER TABLE emails DROP COLUMN outbound;
  `;

async function scalar(qi: QueryInterface, sql: string, transaction: Transaction): Promise<string> {
  const [rows] = await qi.sequelize.query(sql, { transaction });
  return (rows as Array<{ value: string }>)[0].value;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
