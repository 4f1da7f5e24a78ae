import type { QueryInterface } from 'sequelize';

/**
 * Every sync run starts by looking for the account's read states the CRM has not told the server yet
 * (`account AND read_pending AND id > $after ORDER BY id LIMIT n`, src/emails/email-repository.ts).
 * The partial index on (email_account_id) alone left the planner a choice, and while `emails` had no
 * statistics (a new installation before autovacuum's first ANALYZE) it read every row of the account
 * along emails_account_date_idx instead: 20 ms for a 20,000-email account, on every run, idle checks
 * included. With the id in the index, the partial index answers the whole query in order, and the
 * planner takes it whatever the statistics say. Pending rows are few, so the index stays tiny.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE INDEX emails_read_pending_id_idx ON emails (email_account_id, id) WHERE read_pending;
    DROP INDEX emails_read_pending_idx;
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE INDEX emails_read_pending_idx ON emails (email_account_id) WHERE read_pending;
    DROP INDEX emails_read_pending_id_idx;
  `);
}
