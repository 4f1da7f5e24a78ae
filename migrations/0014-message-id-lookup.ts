import type { QueryInterface } from 'sequelize';

/**
 * The sync's check "is this Message-ID already stored under another JMAP id in this account" read
 * the account's rows one by one when PostgreSQL's statistics did not know the account yet (a new
 * account in a database analysed before its first sync: every account of a small installation is in
 * the most-common-values list, so an unknown one is estimated at one row). The planner then picked
 * emails_account_date_idx and filtered it for the Message-ID, per email: a first sync of 20,000
 * emails took 30 s instead of 2 s, and grows with the square of the mailbox.
 *
 * The unique index now leads with message_id, and the check looks a page's Message-IDs up in one
 * index scan with the account as a sub-select, estimated as an average account
 * (src/sync/mail-store-repository.ts). Uniqueness per account is unchanged.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE UNIQUE INDEX emails_message_id_account_key ON emails (message_id, email_account_id) WHERE message_id IS NOT NULL;
    DROP INDEX emails_account_message_id_key;
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE UNIQUE INDEX emails_account_message_id_key ON emails (email_account_id, message_id) WHERE message_id IS NOT NULL;
    DROP INDEX emails_message_id_account_key;
  `);
}
