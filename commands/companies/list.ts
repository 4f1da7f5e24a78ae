import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { presentCompany } from '../../src/companies/company-presenter.js';
import type { CompanyResponse } from '../../src/companies/company-responses.js';
import { listCompaniesQuery } from '../../src/companies/company-schemas.js';
import { listResult } from '../../src/shared/pagination.js';
import { parse } from '../../src/shared/validation.js';

export default class CompaniesList extends BaseCommand {
  static override description =
    "List the companies of the installation (one per correspondents' mail domain; free-mail and the staff's own domains are not companies), " +
    'with their contacts and newest email over every email account.';

  static override examples = [
    '<%= config.bin %> companies list',
    '<%= config.bin %> companies list --search kovac',
    '<%= config.bin %> companies list --sort contactCount --limit 20 --json',
  ];

  static override flags = {
    search: Flags.string({ char: 's', description: 'words that must each occur in the name or the domain (accents and case aside)' }),
    sort: Flags.string({ description: 'order of the list', options: ['lastEmail', 'name', 'contactCount'], default: 'lastEmail' }),
    limit: Flags.integer({ char: 'n', description: 'number of companies', min: 1, max: 10_000, default: 100 }),
    page: Flags.integer({ description: 'page number (with --limit companies per page)', min: 1, default: 1 }),
  };

  async run(): Promise<ReturnType<typeof listResult<CompanyResponse>>> {
    const { flags } = await this.parse(CompaniesList);
    const filter = parse(listCompaniesQuery.pick({ search: true, sort: true }), { search: flags.search, sort: flags.sort });
    const ctx = await this.appContext();
    const page = { page: flags.page, limit: flags.limit };
    const { items, total, hasNext } = await ctx.services.companies.listAll(filter, page);
    const companies = items.map(presentCompany);
    if (companies.length === 0) {
      this.log(flags.search ? 'No companies match.' : 'No companies yet.');
    } else {
      this.log(
        renderTable(companies, [
          { header: 'id', get: (c) => c.id },
          { header: 'domain', get: (c) => c.domain },
          { header: 'name', get: (c) => c.name, maxWidth: 40 },
          { header: 'contacts', get: (c) => String(c.contactCount) },
          { header: 'last email', get: (c) => c.lastEmailAt },
        ]),
      );
      this.log(`\n${companies.length} of ${total}`);
    }
    return listResult(companies, page, { total, hasNext });
  }
}
