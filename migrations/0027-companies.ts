import type { QueryInterface, Transaction } from 'sequelize';
import { isFreeMailDomain } from '../src/companies/free-mail-domains.js';

/**
 * Companies from the correspondents' mail domains (issue 38, docs/adr/0117-companies-from-mail-domains.md).
 *
 * - companies: one row per domain (lower case, unique), with a name and notes staff may set. Its
 *   search_text is the folded "name domain" (crm_fold of migration 0018) for the accent-insensitive
 *   search, stored like contacts.search_text (migration 0025).
 * - contacts.company_id: the company of the contact's domain, NULL for a free-mail domain
 *   (src/companies/free-mail-domains.ts). ON DELETE SET NULL: removing a company (e.g. a domain added
 *   to the free-mail list later) leaves its contacts. Two partial indexes (only contacts with a
 *   company): (company_id, email_account_id) for the foreign key's delete and one company's figures;
 *   (email_account_id, company_id) INCLUDE (last_email_at) for a user's company list, an index-only
 *   range per account like the contact list's (last_email_at is in an index of 0009 already, so its
 *   updates were not HOT before either), and for GET /api/contacts?companyId=.
 * - crm_mail_domain(address): the lower-case part after the last "@", and an index of it on
 *   email_accounts: the staff's own domains are hidden at read time (a company whose domain is the
 *   domain of any email account of the installation is not shown), one probe of this index per row.
 *
 * Existing contacts are filled here: their domains are read, the free-mail ones left out (the list of
 * the release that runs the migration), the rest inserted as companies and the contacts linked.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    const schema = await scalar(qi, 'SELECT current_schema() AS value', transaction);
    const path = `${quoteIdent(schema)}, pg_temp`;
    await qi.sequelize.query(
      `
      CREATE FUNCTION crm_mail_domain(address text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT SET search_path = pg_catalog, pg_temp
        AS $$ SELECT nullif(lower(substring(address from '@([^@]*)$')), '') $$;
      CREATE FUNCTION crm_company_search_text(name text, domain text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = ${path}
        AS $$ SELECT crm_fold(concat_ws(' ', name, domain)) $$;
      CREATE TABLE companies (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        domain text NOT NULL CONSTRAINT companies_domain_key UNIQUE
          CONSTRAINT companies_domain_lower CHECK (domain = lower(domain) AND domain <> '' AND position('@' in domain) = 0),
        name text,
        notes text,
        search_text text GENERATED ALWAYS AS (crm_company_search_text(name, domain)) STORED,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      ALTER TABLE contacts ADD COLUMN company_id uuid REFERENCES companies(id) ON DELETE SET NULL;
      CREATE INDEX contacts_company_idx ON contacts (company_id, email_account_id) WHERE company_id IS NOT NULL;
      CREATE INDEX contacts_account_company_idx ON contacts (email_account_id, company_id) INCLUDE (last_email_at) WHERE company_id IS NOT NULL;
      CREATE INDEX email_accounts_domain_idx ON email_accounts (crm_mail_domain(email));
      `,
      { transaction },
    );
    const [rows] = await qi.sequelize.query('SELECT DISTINCT crm_mail_domain(email) AS domain FROM contacts WHERE crm_mail_domain(email) IS NOT NULL', { transaction });
    const domains = (rows as Array<{ domain: string }>).map((r) => r.domain).filter((d) => !isFreeMailDomain(d));
    if (domains.length === 0) return;
    await qi.sequelize.query(`INSERT INTO companies (domain) SELECT d FROM unnest($1::text[]) AS d ORDER BY d ON CONFLICT (domain) DO NOTHING;`, { bind: [domains], transaction });
    await qi.sequelize.query('UPDATE contacts c SET company_id = co.id FROM companies co WHERE co.domain = crm_mail_domain(c.email) AND c.company_id IS DISTINCT FROM co.id', {
      transaction,
    });
  });
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    await qi.sequelize.query(
      `DROP INDEX IF EXISTS email_accounts_domain_idx;
       ALTER TABLE contacts DROP COLUMN IF EXISTS company_id;
       DROP TABLE IF EXISTS companies;
       DROP FUNCTION IF EXISTS crm_company_search_text(text, text);
       DROP FUNCTION IF EXISTS crm_mail_domain(text);`,
      { transaction },
    );
  });
}

async function scalar(qi: QueryInterface, sql: string, transaction: Transaction): Promise<string> {
  const [rows] = await qi.sequelize.query(sql, { transaction });
  return (rows as Array<{ value: string }>)[0].value;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
