import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { cli, cliEnv, cliJson } from '../admin/cli-helpers.js';
import { runCli } from '../support/cli.js';
import { createEmailAccount } from '../support/email-factories.js';
import { testApp } from '../support/harness.js';
import { addContact, companiesOf, member, setLastEmailAt } from './support.js';

/** `crm-admin companies list`: every company of the installation, counted over every mailbox. */
describe('crm-admin companies list', function () {
  // Every case starts the real crm-admin (oclif, a database connection): seconds each on a busy machine.
  this.timeout(240_000);
  const run = randomBytes(4).toString('hex');
  const TEHLA = `tehla-${run}.sk`;
  const VAPNO = `vapno-${run}.sk`;

  before(async () => {
    const app = await testApp();
    const [jana, peter] = [await member(app), await member(app)];
    const janaBox = await createEmailAccount(jana.fixture);
    const peterBox = await createEmailAccount(peter.fixture);
    const first = await addContact(jana, janaBox.id, `a@${TEHLA}`);
    await addContact(peter, peterBox.id, `b@${TEHLA}`);
    const last = await addContact(peter, peterBox.id, `c@${TEHLA}`);
    // Typed by hand, with no mail: the admin's list counts it all the same.
    await addContact(peter, peterBox.id, `d@${VAPNO}`, undefined, null);
    await addContact(jana, janaBox.id, `e.${run}@gmail.com`);
    await setLastEmailAt(first.id, new Date('2026-04-01T08:00:00Z'));
    await setLastEmailAt(last.id, new Date('2026-04-03T08:00:00Z'));
    // Jana alone sees one contact of the firm; the admin's list counts all three.
    expect((await companiesOf(jana)).find((c) => c.domain === TEHLA)?.contactCount).to.equal(1);
  });

  it('lists every company with its contacts over all mailboxes (--json in the list envelope)', async () => {
    const out = await cliJson(['companies', 'list', '--search', run]);
    expect(out.pagination).to.deep.equal({ page: 1, limit: 100, total: 2, totalExact: true, hasNext: false });
    expect(
      out.items.map((c: { domain: string; name: string; contactCount: number; lastEmailAt: string | null }) => [c.domain, c.name, c.contactCount, c.lastEmailAt]),
    ).to.deep.equal([
      [TEHLA, TEHLA, 3, '2026-04-03T08:00:00.000Z'],
      [VAPNO, VAPNO, 1, null],
    ]);
  });

  it('prints a table, sorts by name, says when nothing matches and refuses an unknown sort', async () => {
    // The real crm-admin once (the rest of the family runs in the test process, ADR 0127).
    const table = await runCli(['companies', 'list', '--search', `vapno-${run}`], cliEnv());
    expect(table.status, table.stderr).to.equal(0);
    expect(table.stdout).to.match(/DOMAIN/);
    expect(table.stdout).to.contain(VAPNO);
    expect(table.stdout).to.not.contain(TEHLA);
    const sorted = await cliJson(['companies', 'list', '--search', run, '--sort', 'name']);
    expect(sorted.items.map((c: { domain: string }) => c.domain)).to.deep.equal([TEHLA, VAPNO]);
    const none = await cli(['companies', 'list', '--search', `nic-${run}`]);
    expect(none.status).to.equal(0);
    expect(none.stdout).to.contain('No companies match.');
    const bad = await cli(['companies', 'list', '--sort', 'size']);
    expect(bad.status).to.not.equal(0);
  });
});
