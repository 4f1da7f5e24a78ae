import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog } from '../../src/models/index.js';
import { createEmailAccount } from '../support/email-factories.js';
import { QueryTypes } from 'sequelize';
import { testApp, testContext } from '../support/harness.js';
import { mailWith } from '../companies/support.js';
import { followUpBox, type FollowUpBox } from '../follow-ups/helpers.js';
import { exportBytes, importOk } from './transfer-support.js';

/**
 * GET /api/contacts/export over HTTP: CSV for Excel (BOM, guarded formula cells), vCard 3.0, who may
 * export, and the round trip: importing an export into the same mailbox changes nothing.
 */
describe('contacts export', function () {
  this.timeout(60_000);
  const run = randomBytes(4).toString('hex');
  let app: Express;
  let box: FollowUpBox;

  before(async () => {
    app = await testApp();
    box = await followUpBox(app);
    const csv =
      'name;email;phone;company;title;tags;notes\r\n' +
      `Ľubomír Šebo;lubo@${run}-kovac.sk;+421 905 123 456;Kováč Žilina s.r.o.;Riaditeľ;zákazník, Žilina;"Prvý riadok\nDruhý; s bodkočiarkou"\r\n` +
      `"=HYPERLINK(""http://zle.example"";""klik"")";formula@${run}-kovac.sk;;;@SUM(A1);-minus;''=už s apostrofom\r\n` +
      `;bezmena.${run}@gmail.com;;;;;\r\n`;
    const answer = await importOk(app, box.owner, box.account.id, `\uFEFF${csv}`);
    expect(answer).to.include({ created: 3, updated: 0 });
    // A file names no company (issue 52, finding 1): the company of the domain is named on its own page.
    const ctx = await testContext();
    await ctx.db.sequelize.query("UPDATE companies SET name = 'Kováč Žilina s.r.o.' WHERE domain = $1", { bind: [`${run}-kovac.sk`] });
    // The mailbox has mail with the domain: its members see the company, and their export writes it (issue 52, finding 1).
    const [lubo] = await ctx.db.sequelize.query<{ id: string }>('SELECT id FROM contacts WHERE email_account_id = $1 AND email = $2', {
      bind: [box.account.id, `lubo@${run}-kovac.sk`],
      type: QueryTypes.SELECT,
    });
    await mailWith(lubo.id, new Date());
    // The box's own contact from followUpBox (no phone, no tags) is exported too: 4 in all.
  });

  it('writes CSV for Excel: UTF-8 with a byte order mark, the header, CRLF, and no cell a spreadsheet would run as a formula', async () => {
    const file = await exportBytes(app, box.owner, box.account.id, 'format=csv');
    expect(file.status).to.equal(200);
    expect(file.type).to.equal('text/csv; charset=utf-8');
    expect([...file.body.subarray(0, 3)]).to.deep.equal([0xef, 0xbb, 0xbf]);
    const text = file.body.toString('utf8').slice(1);
    const lines = text.split('\r\n');
    expect(lines[0]).to.equal('name,email,phone,company,title,tags,notes');
    // A line break inside a cell is quoted (Excel would start a new row at a bare one).
    expect(text).to.contain(`Ľubomír Šebo,lubo@${run}-kovac.sk,'+421 905 123 456,Kováč Žilina s.r.o.,Riaditeľ,"zákazník, Žilina","Prvý riadok\nDruhý; s bodkočiarkou"`);
    // Each formula cell starts with a quote; one that had a quote already gets one more (the import removes exactly one).
    expect(text).to.contain(`"'=HYPERLINK(""http://zle.example"";""klik"")",formula@${run}-kovac.sk,,Kováč Žilina s.r.o.,'@SUM(A1),'-minus,''=už s apostrofom`);
    for (const cell of text.split(/[,\r\n]/)) expect(cell, cell).to.not.match(/^[=+\-@]/);
  });

  it('writes semicolons on request, and vCard 3.0', async () => {
    const semicolons = await exportBytes(app, box.owner, box.account.id, 'format=csv&delimiter=semicolon');
    expect(semicolons.body.toString('utf8')).to.contain('\uFEFFname;email;phone;company;title;tags;notes\r\n');
    const cards = await exportBytes(app, box.owner, box.account.id, 'format=vcf');
    expect(cards.status).to.equal(200);
    expect(cards.type).to.equal('text/vcard; charset=utf-8');
    const text = cards.body.toString('utf8');
    expect(text.match(/BEGIN:VCARD\r\nVERSION:3\.0\r\n/g)).to.have.length(4);
    expect(text).to.contain('FN:Ľubomír Šebo\r\n');
    expect(text).to.contain('ORG:Kováč Žilina s.r.o.\r\n');
    expect(text).to.contain('CATEGORIES:zákazník,Žilina\r\n');
    expect(text).to.contain('NOTE:Prvý riadok\\nDruhý; s bodkočiarkou\r\n');
    // A contact without a name is written with its address as FN (required); the import reads that as no name.
    expect(text).to.contain(`FN:bezmena.${run}@gmail.com\r\n`);
  });

  it('round-trips: importing each export into the same mailbox creates and updates nothing', async () => {
    for (const query of ['format=csv', 'format=csv&delimiter=semicolon', 'format=vcf']) {
      const file = await exportBytes(app, box.owner, box.account.id, query);
      const answer = await importOk(app, box.owner, box.account.id, file.body, { name: query.includes('vcf') ? 'kontakty.vcf' : 'kontakty.csv' });
      expect(answer, query).to.deep.include({ created: 0, updated: 0, unchanged: 4, invalid: [], warnings: [] });
    }
  });

  it('round-trips into another mailbox too: the same values arrive', async () => {
    const other = await createEmailAccount(box.owner.fixture.user);
    const file = await exportBytes(app, box.owner, box.account.id, 'format=csv');
    expect(await importOk(app, box.owner, other.id, file.body)).to.include({ created: 4, updated: 0 });
    const again = await exportBytes(app, box.owner, other.id, 'format=csv');
    // followUpBox's contact was stored without its company (a factory row); imported, it gets its domain's, as the sync would file it.
    const ours = (text: Buffer) =>
      text
        .toString('utf8')
        .split('\r\n')
        .filter((line) => line.includes(run) || line.startsWith('\uFEFF'));
    expect(ours(again.body)).to.deep.equal(ours(file.body));
    expect(ours(file.body)).to.have.length(4); // the header and the first line of each of the three
  });

  it('lets a viewer export (audited with the count), and is a 404 for a mailbox not shared with the caller', async () => {
    const viewer = await exportBytes(app, box.viewer, box.account.id, 'format=vcf');
    expect(viewer.status).to.equal(200);
    const audit = await AuditLog.findOne({ where: { action: AuditActions.contactsExported, userId: box.viewer.fixture.user.id }, order: [['id', 'DESC']] });
    expect(audit?.details).to.deep.equal({ emailAccountId: box.account.id, format: 'vcf', count: 4 });
    const outsider = await exportBytes(app, box.outsider, box.account.id, 'format=csv');
    expect(outsider.status).to.equal(404);
    expect(JSON.parse(outsider.body.toString('utf8')).error.message).to.equal('Emailový účet neexistuje');
    const bad = await exportBytes(app, box.owner, box.account.id, 'format=xlsx');
    expect(bad.status).to.equal(400);
  });
});
