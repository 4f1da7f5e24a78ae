import type { QueryInterface } from 'sequelize';

/**
 * emails.participants counts every address header from now on (From, Sender, Reply-To, To, Cc, Bcc;
 * ADR 0114): export, erasure and the sync's suppression filter find an email by it (GIN index of
 * migration 0004). Rows stored before counted From, To and Cc only. Of the others only Reply-To was
 * stored (addresses->'replyTo', migration 0020): its addresses are added here, in one pass, except the
 * account's own address (the sync leaves it out too). Sender and Bcc were never stored; a full resync
 * fills them in (the sync's upsert refreshes participants when its set changed).
 *
 * The down migration leaves the added addresses: the older code reads participants the same way, and
 * a person on Reply-To is one an erasure must find.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    WITH extra AS (
      SELECT e.id, array_agg(DISTINCT r.address) AS addresses
        FROM emails e
        JOIN email_accounts a ON a.id = e.email_account_id
        CROSS JOIN LATERAL (
          SELECT lower(btrim(x->>'email')) AS address
            FROM jsonb_array_elements(CASE WHEN jsonb_typeof(e.addresses->'replyTo') = 'array' THEN e.addresses->'replyTo' ELSE '[]'::jsonb END) AS x) r
       WHERE e.addresses IS NOT NULL
         AND r.address IS NOT NULL AND r.address <> '' AND r.address <> lower(a.email)
         AND NOT (r.address = ANY (e.participants))
       GROUP BY e.id)
    UPDATE emails e SET participants = e.participants || extra.addresses FROM extra WHERE e.id = extra.id;
  `);
}

export async function down(): Promise<void> {
  // Nothing to undo: see above.
}
