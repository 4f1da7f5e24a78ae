import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Express } from 'express';
import { cli, cliEnv, cliJson } from '../admin/cli-helpers.js';
import { runCli } from '../support/cli.js';
import { testApp } from '../support/harness.js';
import { followUpBox, type FollowUpBox } from '../follow-ups/helpers.js';
import { contactsOf } from './transfer-support.js';

/** `crm-admin contacts import`: the same service as POST /api/contacts/import, as the named user. */
describe('crm-admin contacts import', function () {
  this.timeout(240_000);
  const run = randomBytes(4).toString('hex');
  let app: Express;
  let box: FollowUpBox;
  let file: string;

  before(async () => {
    app = await testApp();
    box = await followUpBox(app);
    const dir = mkdtempSync(path.join(tmpdir(), 'crm-import-'));
    file = path.join(dir, 'kontakty.csv');
    writeFileSync(file, `\uFEFFmeno;email;telefón\r\nĽubomír Šebo;lubo@${run}-cli.sk;0905 123 456\r\nZlý;zly-riadok;\r\n`);
  });

  it('a dry run by username and address reports and stores nothing; a real run by ids stores the valid rows', async () => {
    const dry = await cliJson(['contacts', 'import', '--user', box.owner.fixture.username, '--account', box.account.email.toUpperCase(), '--file', file, '--dry-run']);
    expect(dry.import).to.deep.include({ dryRun: true, format: 'csv', created: 1, updated: 0, unchanged: 0, invalid: [{ row: 3, reason: 'Neplatná emailová adresa' }] });
    expect((await contactsOf(app, box.owner, box.account.id)).has(`lubo@${run}-cli.sk`)).to.equal(false);
    const real = await cliJson(['contacts', 'import', '--user', box.editor.fixture.user.id, '--account', box.account.id, '--file', file]);
    expect(real.import).to.include({ dryRun: false, created: 1 });
    expect((await contactsOf(app, box.owner, box.account.id)).get(`lubo@${run}-cli.sk`)).to.include({ name: 'Ľubomír Šebo', phone: '0905 123 456' });
  });

  it('refuses a viewer, an unknown account and a missing file with exit 1 (the real process once, with its text output)', async () => {
    const viewer = await cli(['contacts', 'import', '--user', box.viewer.fixture.username, '--account', box.account.id, '--file', file]);
    expect(viewer.status).to.equal(1);
    expect(viewer.stderr).to.contain('Kontakty tohto emailového účtu môžete len prezerať');
    const unknown = await cli(['contacts', 'import', '--user', box.owner.fixture.username, '--account', `nikto-${run}@nikde.sk`, '--file', file]);
    expect(unknown.status).to.equal(1);
    expect(unknown.stderr).to.contain('Emailový účet neexistuje');
    const missing = await runCli(['contacts', 'import', '--user', box.owner.fixture.username, '--account', box.account.id, '--file', `${file}.chyba`], cliEnv());
    expect(missing.status).to.equal(1);
    expect(missing.stderr).to.contain('sa nedá otvoriť');
    const text = await runCli(['contacts', 'import', '--user', box.owner.fixture.username, '--account', box.account.id, '--file', file, '--dry-run'], cliEnv());
    expect(text.status, text.stderr).to.equal(0);
    // One valid row: new when this test runs alone, unchanged after the first test stored it.
    expect(text.stdout).to.match(/^Dry run \(nothing stored\): (1 created, 0 updated, 0 unchanged|0 created, 0 updated, 1 unchanged), 1 invalid\.$/m);
    expect(text.stdout).to.contain('row 3: Neplatná emailová adresa');
  });
});
