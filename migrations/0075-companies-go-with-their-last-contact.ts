import type { QueryInterface } from 'sequelize';

/**
 * A company goes with its last contact (issue 52, finding 4): what staff wrote on a company ("Ana:
 * health issues") is about the people filed there, and a company nobody is filed under is seen by
 * nobody (company-visibility.ts), so keeping it only served its old notes to the next person who adds a
 * contact at that domain, and kept a personal domain after its person was erased or their mailbox gone.
 *
 * A statement trigger on contacts (every writer: a delete by hand, a mailbox or user removed (the
 * cascades), an erasure, the retention's empty contacts) deletes the companies the deleted rows were
 * filed under that no contact is filed under any more. Lock, then check: it first locks those
 * companies FOR UPDATE, which waits for any transaction filing a new contact under one of them (that
 * one holds FOR KEY SHARE from ensureCompanies, src/companies/company-assignment.ts, until it commits),
 * and only then asks, in a statement of its own (a snapshot of its own), whether a contact is left.
 * Nothing updates contacts.company_id from a company to another (the sync only fills a NULL), so
 * deletes are the only way a company loses its contacts; the ON DELETE SET NULL of the foreign key
 * stays for the free-mail list's own migrations.
 *
 * The companies that already have no contact are deleted here (their notes were invisible to every
 * user already). Cost: one anti-join of companies against contacts_company_idx; a contact delete pays
 * one lock and one index probe per distinct company of the deleted rows.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE FUNCTION crm_companies_without_contacts() RETURNS trigger
      LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
    DECLARE
      ids uuid[];
    BEGIN
      SELECT array_agg(DISTINCT company_id ORDER BY company_id) INTO ids FROM old_rows WHERE company_id IS NOT NULL;
      IF ids IS NULL THEN
        RETURN NULL;
      END IF;
      PERFORM 1 FROM companies WHERE id = ANY (ids) ORDER BY id FOR UPDATE;
      DELETE FROM companies co WHERE co.id = ANY (ids) AND NOT EXISTS (SELECT 1 FROM contacts c WHERE c.company_id = co.id);
      RETURN NULL;
    END $$;

    CREATE TRIGGER contacts_companies_delete AFTER DELETE ON contacts
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION crm_companies_without_contacts();

    DELETE FROM companies co WHERE NOT EXISTS (SELECT 1 FROM contacts c WHERE c.company_id = co.id);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TRIGGER IF EXISTS contacts_companies_delete ON contacts;
    DROP FUNCTION IF EXISTS crm_companies_without_contacts();
  `);
}
