import type { QueryInterface } from 'sequelize';

/**
 * What the web app's lists and email detail need from the sync, stored once instead of computed per row:
 * - has_attachments: JMAP's hasAttachment (RFC 8621: parts a client should offer as downloads), for the
 *   paperclip of a list item. Rows stored before this migration get it from the attachment metadata
 *   the sync recorded (a non-inline part), in one pass.
 * - addresses: From, To, Cc and Reply-To as [{name, email}] lists (jsonb, a few hundred bytes): the
 *   display strings in "from"/"to" cannot be split back reliably (a comma inside a quoted name). NULL
 *   for rows stored before; the API then splits the display strings as well as it can.
 * No new index: lists sort newest or oldest along the existing (email_account_id, date DESC, id) and
 * (contact_id, email_date DESC, email_id) indexes, read backwards for the oldest first.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE emails ADD COLUMN has_attachments boolean NOT NULL DEFAULT false, ADD COLUMN addresses jsonb;
    UPDATE emails e SET has_attachments = true
     WHERE EXISTS (SELECT 1 FROM email_attachments a WHERE a.email_id = e.id AND NOT a.is_inline);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('ALTER TABLE emails DROP COLUMN addresses, DROP COLUMN has_attachments');
}
