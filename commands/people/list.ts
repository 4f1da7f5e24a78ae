import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { presentPerson } from '../../src/people/person-presenter.js';
import type { PersonResponse } from '../../src/people/person-responses.js';
import { listPeopleQuery } from '../../src/people/person-schemas.js';
import { listResult } from '../../src/shared/pagination.js';
import { parse } from '../../src/shared/validation.js';

/**
 * The people list as one user sees it (GET /api/people for them): what an administrator checks when a
 * user asks why a customer shows as two people, or why they do not see someone's notes. Seen through
 * that user's mailboxes only, shared fields only through their mail (docs/adr/0136): no installation-wide
 * list, which would put every note of every team in one place (a person's full record is in
 * `crm-admin privacy export`).
 */
export default class PeopleList extends BaseCommand {
  static override description =
    'List the people (one per correspondent, over the contacts of every mailbox) as a user sees them: the addresses and mailboxes they read, newest mail first; the fields staff share only where that user has mail with the person.';

  static override examples = ['<%= config.bin %> people list --user jana', '<%= config.bin %> people list --user jana --search sebo --json'];

  static override flags = {
    user: Flags.string({ char: 'u', description: 'the user (login name) whose view to list', required: true }),
    search: Flags.string({ char: 's', description: 'words that must each occur in a name, an address or the company (accents and case aside)' }),
    'include-colleagues': Flags.boolean({ description: "also the installation's own staff", default: false }),
    limit: Flags.integer({ char: 'n', description: 'people per page', min: 1, max: 100, default: 50 }),
    page: Flags.integer({ description: 'page number', min: 1, default: 1 }),
  };

  async run(): Promise<ReturnType<typeof listResult<PersonResponse>>> {
    const { flags } = await this.parse(PeopleList);
    const filter = parse(listPeopleQuery.pick({ search: true, includeColleagues: true }), {
      search: flags.search,
      includeColleagues: String(flags['include-colleagues']),
    });
    const ctx = await this.appContext();
    const user = await ctx.services.userAdmin.getByUsername(flags.user);
    const page = { page: flags.page, limit: flags.limit };
    const { items, total, totalExact, hasNext } = await ctx.services.people.list(user.id, filter, page);
    const people = items.map(presentPerson);
    if (people.length === 0) {
      this.log(flags.search ? 'No people match.' : `${flags.user} sees no people.`);
    } else {
      this.log(
        renderTable(people, [
          { header: 'id', get: (p) => p.id },
          { header: 'name', get: (p) => p.name, maxWidth: 40 },
          { header: 'addresses', get: (p) => p.emails.join(', '), maxWidth: 60 },
          { header: 'company', get: (p) => p.company?.name ?? null, maxWidth: 30 },
          { header: 'last email', get: (p) => p.lastEmailAt },
          { header: 'mailboxes', get: (p) => String(p.emailAccountIds.length) },
        ]),
      );
      this.log(`\n${people.length} of ${totalExact === false ? `more than ${total}` : total}`);
    }
    return listResult(people, page, { total, totalExact, hasNext });
  }
}
