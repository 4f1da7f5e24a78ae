import type { QueryInterface } from 'sequelize';

/**
 * Company fields and the contact columns an address book import brings (issue 46).
 *
 * - companies: registration_number (IČO), vat_id (IČ DPH), address, phone, website; nullable text,
 *   validated by the API (src/companies/company-fields.ts), not by CHECKs: the rules (checksum, the
 *   EU VAT prefixes) are the application's and may be relaxed without a migration.
 * - contacts: phone, title (job title) and tags (text[], NOT NULL DEFAULT '{}'), filled by
 *   POST /api/contacts/import and written by the export.
 *
 * Cost: ADD COLUMN of a nullable column, or with a constant default, is a catalogue change only
 * (PostgreSQL 11+): no rewrite, a brief ACCESS EXCLUSIVE lock on each table.
 *
 * The contacts' event trigger compares its news columns one by one (migration 0030): the three new
 * columns are news (a phone changed by an import is a contact.updated), so the function is defined
 * again with them; down restores 0030's list.
 */
const grouped = (alias: string) =>
  `CASE WHEN count(*) > 50
        THEN jsonb_build_object('emailAccountId', ${alias}.email_account_id, 'count', count(*))
        ELSE jsonb_build_object('emailAccountId', ${alias}.email_account_id, 'count', count(*), 'ids', jsonb_agg(${alias}.id)) END`;

const contactEvents = (columns: readonly string[]) => `
  CREATE OR REPLACE FUNCTION crm_events_contacts() RETURNS trigger LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
  DECLARE
    added bigint;
  BEGIN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO events (type, email_account_id, payload)
      SELECT 'contact.created', n.email_account_id, ${grouped('n')} FROM new_rows n GROUP BY n.email_account_id;
    ELSIF TG_OP = 'UPDATE' THEN
      INSERT INTO events (type, email_account_id, payload)
      SELECT 'contact.updated', n.email_account_id, ${grouped('n')}
        FROM new_rows n JOIN old_rows o ON o.id = n.id
       WHERE (${columns.map((c) => `n.${c}`).join(', ')}) IS DISTINCT FROM (${columns.map((c) => `o.${c}`).join(', ')})
       GROUP BY n.email_account_id;
    ELSE
      INSERT INTO events (type, email_account_id, payload)
      SELECT 'contact.deleted', o.email_account_id, ${grouped('o')} FROM old_rows o GROUP BY o.email_account_id;
    END IF;
    GET DIAGNOSTICS added = ROW_COUNT;
    IF added > 0 THEN
      PERFORM pg_notify('crm_events', '');
    END IF;
    RETURN NULL;
  END $$;`;

/** Migration 0030's news columns of a contact. */
const NEWS_0030 = ['email_account_id', 'email', 'name', 'notes', 'added_at', 'created_at', 'company_id'];
const NEWS = [...NEWS_0030, 'phone', 'title', 'tags'];

export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    await qi.sequelize.query(
      `
      ALTER TABLE companies ADD COLUMN registration_number text, ADD COLUMN vat_id text, ADD COLUMN address text,
                            ADD COLUMN phone text, ADD COLUMN website text;
      ALTER TABLE contacts ADD COLUMN phone text, ADD COLUMN title text, ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
      ${contactEvents(NEWS)}
      `,
      { transaction },
    );
  });
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    await qi.sequelize.query(
      `
      ${contactEvents(NEWS_0030)}
      ALTER TABLE contacts DROP COLUMN IF EXISTS phone, DROP COLUMN IF EXISTS title, DROP COLUMN IF EXISTS tags;
      ALTER TABLE companies DROP COLUMN IF EXISTS registration_number, DROP COLUMN IF EXISTS vat_id, DROP COLUMN IF EXISTS address,
                            DROP COLUMN IF EXISTS phone, DROP COLUMN IF EXISTS website;
      `,
      { transaction },
    );
  });
}
