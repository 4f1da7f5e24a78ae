import type { QueryInterface } from 'sequelize';

/**
 * New emails and attachment rows get time-ordered ids (UUID version 7, RFC 9562 §5.7) instead of
 * random ones (version 4). The sync inserts emails by the tens of thousands; with random ids each one
 * lands on a random leaf of emails_pkey and of the keys that lead with email_id (email_contacts,
 * email_attachments), so a large table keeps touching, caching and (after every checkpoint) logging
 * in full most pages of those indexes. Time-ordered ids append at their right edge. Measured by
 * replaying a 20,000-email first sync into a growing database: about 5% less write time at
 * 200,000–280,000 emails, growing with the table; no difference at 20,000.
 *
 * PostgreSQL 18 has uuidv7(). For 13–17 (docs/configuration.md: any PostgreSQL 13+, and restores run these
 * migrations on the target) crm_uuid_v7() builds the same layout: the Unix time in milliseconds in
 * the first 48 bits over a random version-4 UUID, its version nibble set to 7. Both bodies are one
 * SQL expression, which PostgreSQL inlines into the INSERT. Existing ids stay as they are. An id now
 * tells when its row was stored, which the email's own date already tells more precisely.
 */
export const PORTABLE_UUID_V7 = `
  encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
    PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
    52, 1), 53, 1), 'hex')::uuid`;

export async function up(qi: QueryInterface): Promise<void> {
  const [rows] = await qi.sequelize.query("SELECT to_regprocedure('uuidv7()') IS NOT NULL AS native");
  const native = (rows as Array<{ native: boolean }>)[0].native;
  await qi.sequelize.query(`
    CREATE FUNCTION crm_uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE AS $$ SELECT ${native ? 'uuidv7()' : PORTABLE_UUID_V7} $$;
    ALTER TABLE emails ALTER COLUMN id SET DEFAULT crm_uuid_v7();
    ALTER TABLE email_attachments ALTER COLUMN id SET DEFAULT crm_uuid_v7();
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    ALTER TABLE email_attachments ALTER COLUMN id SET DEFAULT gen_random_uuid();
    ALTER TABLE emails ALTER COLUMN id SET DEFAULT gen_random_uuid();
    DROP FUNCTION crm_uuid_v7();
  `);
}
