import { expect } from 'chai';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createMigrator } from '../../src/db/migrator.js';
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';

const BEFORE_COMPANIES = '0026-participants-every-address-header';

/** Migration 0027 on a scratch database: contacts that existed before it are filed under their domain's company. */
describe('migration 0027: companies', function () {
  this.timeout(60_000);
  let scratch: ScratchDatabase;
  let db: Sequelize;

  beforeEach(async () => {
    scratch = await scratchDatabase('crm_companies');
    db = scratch.db;
  });

  afterEach(() => scratch?.drop());

  const rows = <T extends object>(sql: string) => db.query<T>(sql, { type: QueryTypes.SELECT });
  const one = async (sql: string) => (await rows<{ v: unknown }>(sql))[0].v;

  /** Two accounts of staff.sk with contacts at a firm, at free-mail providers and at staff.sk itself, stored before 0027. */
  async function contactsBeforeCompanies(): Promise<void> {
    await createMigrator(db).up({ to: BEFORE_COMPANIES });
    const jana = (await one("INSERT INTO users (username) VALUES ('jana') RETURNING id::text AS v")) as string;
    const accounts: string[] = [];
    for (const address of ['jana@staff.sk', 'obchod@staff.sk']) {
      accounts.push(
        (await one(
          `INSERT INTO email_accounts (user_id, email, email_password, jmap_account_id) VALUES ('${jana}', '${address}', 'v1:x', '${address}') RETURNING id::text AS v`,
        )) as string,
      );
    }
    const contact = (account: string, email: string, lastEmailAt = 'NULL') =>
      db.query(`INSERT INTO contacts (user_id, email_account_id, email, last_email_at) VALUES ('${jana}', '${account}', '${email}', ${lastEmailAt})`);
    await contact(accounts[0], 'a@firma.sk', "'2026-01-05'");
    await contact(accounts[0], 'b@firma.sk');
    await contact(accounts[1], 'a@firma.sk', "'2026-01-09'");
    await contact(accounts[0], 'c@gmail.com');
    await contact(accounts[0], 'd@gmx.net');
    await contact(accounts[1], 'e@seznam.cz');
    await contact(accounts[0], 'f@staff.sk');
    await contact(accounts[1], 'g@Druha-Firma.SK');
  }

  const filed = () =>
    rows<{ email: string; domain: string | null }>('SELECT c.email, co.domain FROM contacts c LEFT JOIN companies co ON co.id = c.company_id ORDER BY c.email, c.email_account_id');

  it('files existing contacts under their domain, free-mail domains under none', async () => {
    await contactsBeforeCompanies();
    await createMigrator(db).up();
    expect(await rows('SELECT domain, name, notes FROM companies ORDER BY domain')).to.deep.equal([
      { domain: 'druha-firma.sk', name: null, notes: null },
      { domain: 'firma.sk', name: null, notes: null },
      // The staff's own domain gets its row like any other; it is hidden where companies are read.
      { domain: 'staff.sk', name: null, notes: null },
    ]);
    expect(await filed()).to.deep.equal([
      { email: 'a@firma.sk', domain: 'firma.sk' },
      { email: 'a@firma.sk', domain: 'firma.sk' },
      { email: 'b@firma.sk', domain: 'firma.sk' },
      { email: 'c@gmail.com', domain: null },
      { email: 'd@gmx.net', domain: null },
      { email: 'e@seznam.cz', domain: null },
      { email: 'f@staff.sk', domain: 'staff.sk' },
      { email: 'g@Druha-Firma.SK', domain: 'druha-firma.sk' },
    ]);
    expect(await one("SELECT crm_mail_domain('x@Staff.SK') AS v")).to.equal('staff.sk');
    expect(
      await one("SELECT count(*)::int AS v FROM pg_indexes WHERE indexname IN ('contacts_company_idx', 'contacts_account_company_idx', 'email_accounts_domain_idx')"),
    ).to.equal(3);
  });

  it('keeps contacts when a company is deleted (ON DELETE SET NULL) and refuses a second row of a domain', async () => {
    await contactsBeforeCompanies();
    await createMigrator(db).up();
    await db.query("DELETE FROM companies WHERE domain = 'firma.sk'");
    expect(await one("SELECT count(*)::int AS v FROM contacts WHERE email LIKE '%@firma.sk' AND company_id IS NULL")).to.equal(3);
    let refused = '';
    await db.query("INSERT INTO companies (domain) VALUES ('staff.sk')").catch((err: Error) => (refused = String(err)));
    expect(refused).to.match(/unique|duplicate/i);
    await db.query("INSERT INTO companies (domain) VALUES ('Upper.SK')").catch((err: Error) => (refused = String(err)));
    expect(refused).to.match(/companies_domain_lower/);
  });

  it('goes down to 0026 and up again', async () => {
    await contactsBeforeCompanies();
    await createMigrator(db).up();
    await createMigrator(db).down({ to: '0027-companies' });
    expect(await one("SELECT to_regclass('companies')::text AS v")).to.equal(null);
    expect(await one("SELECT count(*)::int AS v FROM information_schema.columns WHERE table_name = 'contacts' AND column_name = 'company_id'")).to.equal(0);
    expect(await one('SELECT count(*)::int AS v FROM contacts')).to.equal(8);
    await createMigrator(db).up();
    expect(await one('SELECT count(*)::int AS v FROM contacts WHERE company_id IS NOT NULL')).to.equal(5);
  });
});
