import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { cli, cliJson } from '../admin/cli-helpers.js';
import { testApp } from '../support/harness.js';
import { personOf, receive, team, type Team } from './support.js';

/** `crm-admin people list --user`: the people list as one user sees it, for an administrator's support. */
describe('crm-admin people list', function () {
  this.timeout(240_000);
  const run = randomBytes(4).toString('hex');
  let t: Team;

  before(async () => {
    const app = await testApp();
    t = await team(app, run);
    await receive(t.teamBox, `maria@cli-${run}.sk`, { name: 'Mária Clijová' });
    await receive(t.aliceBox, `jan@cli-${run}.sk`, { name: 'Ján Clijový' });
  });

  it('lists what the user sees, through their mailboxes only (--json in the list envelope)', async () => {
    const mine = await cliJson(['people', 'list', '--user', t.viewer.fixture.username, '--search', `cli-${run}`]);
    expect(mine.items.map((p: { id: string; name: string; emailAccountIds: string[] }) => [p.id, p.name, p.emailAccountIds])).to.deep.equal([
      [await personOf(`maria@cli-${run}.sk`), 'Mária Clijová', [t.teamBox.id]],
    ]);
    expect(mine.pagination).to.include({ total: 1, totalExact: true });
    const theirs = await cliJson(['people', 'list', '--user', t.alice.fixture.username, '--search', `cli-${run}`]);
    expect(theirs.items.map((p: { emails: string[] }) => p.emails)).to.deep.equal([[`jan@cli-${run}.sk`]]);
  });

  it('prints a table, says when nothing matches, and refuses an unknown user or a missing --user', async () => {
    const table = await cli(['people', 'list', '--user', t.carol.fixture.username, '--search', `cli-${run}`]);
    expect(table.status, table.stderr).to.equal(0);
    expect(table.stdout).to.contain(`maria@cli-${run}.sk`).and.not.contain(`jan@cli-${run}.sk`);
    const none = await cli(['people', 'list', '--user', t.carol.fixture.username, '--search', `nikto-${run}`]);
    expect(none.stdout).to.contain('No people match.');
    expect((await cli(['people', 'list', '--user', `nikto-${run}`])).status).to.equal(1);
    expect((await cli(['people', 'list'])).status).to.equal(2);
  });
});
