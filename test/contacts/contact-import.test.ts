import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { QueryTypes } from 'sequelize';
import { AuditActions } from '../../src/audit/audit-service.js';
import { COMPANY_NOT_IMPORTED } from '../../src/contacts/import-plan.js';
import { AuditLog } from '../../src/models/index.js';
import { createContact } from '../support/email-factories.js';
import { mailWith } from '../companies/support.js';
import { testApp, testContext } from '../support/harness.js';
import { followUpBox, type FollowUpBox } from '../follow-ups/helpers.js';
import { contactsOf, fixture, importOk, importRequest } from './transfer-support.js';

const BOM = '\uFEFF';

/**
 * POST /api/contacts/import over HTTP: Excel's Slovak CSV (BOM, semicolons, CRLF, diacritics), comma
 * CSV, vCard 3.0 and 4.0 (and 2.1), invalid rows with a spreadsheet's row numbers, dry runs, updates
 * only where the file differs, and who may import.
 */
describe('contacts import', function () {
  this.timeout(60_000);
  const run = randomBytes(4).toString('hex');
  let app: Express;
  let box: FollowUpBox;

  before(async () => {
    app = await testApp();
    box = await followUpBox(app);
  });

  it('reads an Excel CSV of a Slovak locale: byte order mark, semicolons, CRLF, diacritics, header in any order and case', async () => {
    const csv =
      BOM +
      'EMAIL;Name;Telefón;Company;TITLE;tags;Notes;Stĺpec navyše\r\n' +
      `lubomir.sebo@${run}-excel.sk;Ľubomír Šebo;+421 905 123 456;Šebo Žilina s.r.o.;Riaditeľ;zákazník, Žilina;"Stretnutie; v Žiline";ignorované\r\n` +
      `anna@${run}-excel.sk;Anna Ďurišová;;;;;;\r\n`;
    const answer = await importOk(app, box.owner, box.account.id, csv);
    expect(answer).to.deep.equal({ dryRun: false, format: 'csv', created: 2, updated: 0, unchanged: 0, invalid: [], warnings: [{ row: 2, reason: COMPANY_NOT_IMPORTED }] });
    const contacts = await contactsOf(app, box.owner, box.account.id);
    const lubo = contacts.get(`lubomir.sebo@${run}-excel.sk`)!;
    expect(lubo).to.include({ name: 'Ľubomír Šebo', phone: '+421 905 123 456', title: 'Riaditeľ', notes: 'Stretnutie; v Žiline' });
    expect(lubo.tags).to.deep.equal(['zákazník', 'Žilina']);
    // The company is the domain's, shared with everyone who sees it: a file (anyone may type its addresses)
    // never names it, and shows it only once there is mail with the domain (issue 52, finding 1).
    expect(lubo.company).to.equal(null);
    expect(contacts.get(`anna@${run}-excel.sk`)).to.include({ name: 'Anna Ďurišová', phone: null, title: null, notes: null });
    await mailWith(lubo.id, new Date());
    const mailed = (await contactsOf(app, box.owner, box.account.id)).get(`lubomir.sebo@${run}-excel.sk`)!;
    expect(mailed.company).to.deep.equal({ id: mailed.companyId, name: `${run}-excel.sk` });
    const company = await box.owner.as(request(app).get(`/api/companies/${mailed.companyId}`));
    expect(company.body.data.company.name).to.equal(`${run}-excel.sk`);
  });

  it('reports invalid rows with the row numbers a spreadsheet shows, and stores the valid rows of a real run', async () => {
    const csv = [
      'name,email,notes',
      `"Peter, dva riadky",peter@${run}-rows.sk,"prvý riadok\nďalší riadok"`, // row 2, two lines of text
      'Zlý,nie-je-adresa,', // row 3
      '', // row 4: empty, skipped, still counted
      'Bez adresy,,', // row 5
      `Peter znova,PETER@${run}-rows.sk,`, // row 6: the address of row 2
      `Dlhé meno,dlhe@${run}-rows.sk,${'x'.repeat(10_001)}`, // row 7
      `Ivan,ivan@${run}-rows.sk,ok`, // row 8
    ].join('\n');
    const answer = await importOk(app, box.editor, box.account.id, csv);
    expect(answer).to.include({ dryRun: false, created: 2, updated: 0, unchanged: 0 });
    expect(answer.invalid).to.deep.equal([
      { row: 3, reason: 'Neplatná emailová adresa' },
      { row: 5, reason: 'Chýba email' },
      { row: 6, reason: `Adresa peter@${run}-rows.sk je v súbore už v riadku 2` },
      { row: 7, reason: 'Poznámka môže mať najviac 10000 znakov' },
    ]);
    const contacts = await contactsOf(app, box.owner, box.account.id);
    expect(contacts.get(`peter@${run}-rows.sk`)).to.include({ name: 'Peter, dva riadky', notes: 'prvý riadok\nďalší riadok' });
    expect(contacts.has(`dlhe@${run}-rows.sk`)).to.equal(false);
    // Audited with counts only: no address or value of the file.
    const audit = await AuditLog.findOne({ where: { action: AuditActions.contactsImported, userId: box.editor.fixture.user.id }, order: [['id', 'DESC']] });
    expect(audit?.details).to.deep.equal({ emailAccountId: box.account.id, format: 'csv', created: 2, updated: 0, unchanged: 0, invalid: 4, warnings: 0 });
    expect(JSON.stringify(audit?.details)).to.not.contain(run);
  });

  it('a dry run answers the counts and stores nothing, not even an audit record', async () => {
    await createContact(box.account, { email: `known@${run}-dry.sk`, name: 'Známy' });
    const before = await AuditLog.count({ where: { action: AuditActions.contactsImported } });
    const csv = `name,email\nNový,new@${run}-dry.sk\nPremenovaný,known@${run}-dry.sk\n`;
    const answer = await importOk(app, box.owner, box.account.id, csv, { dryRun: true });
    expect(answer).to.deep.equal({ dryRun: true, format: 'csv', created: 1, updated: 1, unchanged: 0, invalid: [], warnings: [] });
    const contacts = await contactsOf(app, box.owner, box.account.id);
    expect(contacts.has(`new@${run}-dry.sk`)).to.equal(false);
    expect(contacts.get(`known@${run}-dry.sk`)?.name).to.equal('Známy');
    expect(await AuditLog.count({ where: { action: AuditActions.contactsImported } })).to.equal(before);
  });

  it('changes a known contact only where the file has a value that differs; tags are added; the same file again changes nothing', async () => {
    await createContact(box.account, { email: `eva@${run}-upd.sk`, name: 'Eva Malá' });
    const csv = `email;name;phone;tags\neva@${run}-upd.sk;;0905 111 222;VIP\n`;
    expect(await importOk(app, box.owner, box.account.id, csv)).to.include({ created: 0, updated: 1, unchanged: 0 });
    const again = `email;name;tags\neva@${run}-upd.sk;Eva Malá;vip, nový\n`;
    expect(await importOk(app, box.owner, box.account.id, again)).to.include({ created: 0, updated: 1, unchanged: 0 });
    const eva = (await contactsOf(app, box.owner, box.account.id)).get(`eva@${run}-upd.sk`)!;
    expect(eva).to.include({ name: 'Eva Malá', phone: '0905 111 222' });
    expect(eva.tags).to.deep.equal(['VIP', 'nový']);
    expect(await importOk(app, box.owner, box.account.id, again)).to.include({ created: 0, updated: 0, unchanged: 1 });
  });

  it('reads vCard 3.0 (folded lines, escapes, N without FN, TYPE=PREF) and reports a card without an address by its position', async () => {
    const answer = await importOk(app, box.owner, box.account.id, fixture('vcard-3.vcf', run), { name: 'adresar.vcf' });
    expect(answer).to.deep.include({ format: 'vcf', created: 2, updated: 0, invalid: [{ row: 3, reason: 'Chýba email' }], warnings: [{ row: 1, reason: COMPANY_NOT_IMPORTED }] });
    const contacts = await contactsOf(app, box.owner, box.account.id);
    const lubo = contacts.get(`lubomir.sebo@${run}-zilina.sk`)!;
    expect(lubo).to.include({
      name: 'Ľubomír Šebo',
      phone: '+421 905 123 456',
      title: 'Obchodný riaditeľ',
      notes: 'Stretnutie v Žiline, v pondelok.\nDruhý riadok poznámky, ktorý je dlhý a preto je zalomený podľa RFC.',
    });
    expect(lubo.tags).to.deep.equal(['zákazník', 'Žilina']);
    // ORG is read (its first component, the escaped comma kept) but, like a CSV's company column, names no
    // company; the domain's shows once there is mail with it (issue 52, finding 1).
    expect(lubo.company).to.equal(null);
    expect(contacts.get(`z.novakova@${run}-zilina.sk`)).to.include({ name: 'Zuzana Nováková' });
    expect(contacts.has(`zuzana.novakova@${run}-zilina.sk`)).to.equal(false);
  });

  it('reads vCard 4.0 (PREF=1, tel: URIs, repeated CATEGORIES, LF line ends) and 2.1 with quoted-printable', async () => {
    const answer = await importOk(app, box.owner, box.account.id, fixture('vcard-4.vcf', run), { name: 'adresar.vcf' });
    expect(answer).to.deep.include({ format: 'vcf', created: 2, updated: 0, invalid: [{ row: 2, reason: 'Neplatná emailová adresa' }] });
    const contacts = await contactsOf(app, box.owner, box.account.id);
    const jana = contacts.get(`jana.horvathova@${run}-kosice.sk`)!;
    expect(jana).to.include({ name: 'Jana Horváthová', phone: '+421-905-111-222', title: 'Konateľka', notes: 'vCard 4.0 s LF koncami riadkov' });
    expect(jana.tags).to.deep.equal(['dodávateľ', 'VIP']);
    expect(jana.company).to.equal(null);
    expect(contacts.get(`milan@${run}-kosice.sk`)).to.include({ name: 'Milan Štefánik', phone: '0905333444' });
  });

  it('never names a company another team works with, and answers the same whatever the company is (typed addresses unlock nothing)', async () => {
    // Another team's company, named, with their notes: the importer has never written with that domain.
    const other = `${run}-partner.sk`;
    const ctx = await testContext();
    await ctx.db.sequelize.query("INSERT INTO companies (domain, name, notes) VALUES ($1, 'Partner a.s.', 'tajná poznámka')", { bind: [other] });
    const unknown = `${run}-nikto.sk`;
    const csv = `email,name,company\nx@${other},X,Prepísaná\ny@${unknown},Y,Nová firma\n${run}.fero@gmail.com,Fero,Moja firma\n`;
    const dry = await importOk(app, box.owner, box.account.id, csv, { dryRun: true });
    const answer = await importOk(app, box.owner, box.account.id, csv);
    // One warning text for the named company, a domain nobody knows and a free-mail address alike.
    for (const a of [dry, answer]) expect(a.warnings).to.deep.equal([2, 3, 4].map((row) => ({ row, reason: COMPANY_NOT_IMPORTED })));
    expect(answer.created).to.equal(3);
    const [row] = await ctx.db.sequelize.query<{ name: string; notes: string }>('SELECT name, notes FROM companies WHERE domain = $1', { bind: [other], type: QueryTypes.SELECT });
    expect(row).to.deep.equal({ name: 'Partner a.s.', notes: 'tajná poznámka' });
    expect((await contactsOf(app, box.owner, box.account.id)).get(`${run}.fero@gmail.com`)?.company).to.equal(null);
  });

  it('refuses with 400 a file that is neither CSV nor vCard, an empty file, one not in UTF-8, too many rows or too many bytes', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const cases: Array<[Buffer | string, string]> = [
      [png, 'Súbor nie je v kódovaní UTF-8 (v Exceli uložte ako „CSV UTF-8“)'],
      ['toto nie je adresár, len text\n', 'Súbor nie je CSV s hlavičkou (name,email,phone,company,title,tags,notes) ani vCard'],
      ['', 'Súbor je prázdny'],
      [Buffer.from('name;email\nJ\xfalia;julia@x.sk\n', 'latin1'), 'Súbor nie je v kódovaní UTF-8 (v Exceli uložte ako „CSV UTF-8“)'],
      [`email\n${Array.from({ length: 10_001 }, (_, i) => `a${i}@${run}-many.sk`).join('\n')}\n`, 'Súbor má viac ako 10 000 kontaktov'],
      [Buffer.alloc(5 * 1024 * 1024 + 1, 'a'), 'Súbor je väčší ako 5 MB'],
    ];
    for (const [file, message] of cases) {
      const res = await importRequest(app, box.owner, box.account.id, file);
      expect(res.status, message).to.equal(400);
      expect(res.body.success).to.equal(false);
      expect(res.body.error.message).to.equal(message);
    }
    const none = await box.owner.as(request(app).post('/api/contacts/import')).field('emailAccountId', box.account.id);
    expect(none.status).to.equal(400);
    expect(none.body.error.message).to.equal('Priložte súbor v poli "file" (CSV alebo vCard)');
    expect((await contactsOf(app, box.owner, box.account.id)).has(`a0@${run}-many.sk`)).to.equal(false);
  });

  it('is all or nothing: a real run that fails in the database leaves no contact, change or audit record behind', async () => {
    await createContact(box.account, { email: `stays@${run}-atomic.sk`, name: 'Pôvodné meno' });
    const ctx = await testContext();
    const boom = `boom@${run}-atomic.sk`;
    // The last row's insert fails inside the transaction, after the other rows' writes (a trigger of this test only).
    await ctx.db.sequelize.query(`
      CREATE FUNCTION test_import_boom_${run}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.email = '${boom}' THEN RAISE EXCEPTION 'test failure'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER test_import_boom_${run} BEFORE INSERT ON contacts FOR EACH ROW EXECUTE FUNCTION test_import_boom_${run}();`);
    const before = await AuditLog.count({ where: { action: AuditActions.contactsImported } });
    try {
      const csv = `email,name,company\nnew@${run}-atomic.sk,Nový,Atómová s.r.o.\nstays@${run}-atomic.sk,Nové meno,\n${boom},Bum,\n`;
      const res = await importRequest(app, box.owner, box.account.id, csv);
      expect(res.status).to.equal(500);
    } finally {
      await ctx.db.sequelize.query(`DROP TRIGGER test_import_boom_${run} ON contacts; DROP FUNCTION test_import_boom_${run}();`);
    }
    const contacts = await contactsOf(app, box.owner, box.account.id);
    expect(contacts.has(`new@${run}-atomic.sk`)).to.equal(false);
    expect(contacts.get(`stays@${run}-atomic.sk`)?.name).to.equal('Pôvodné meno');
    expect(await AuditLog.count({ where: { action: AuditActions.contactsImported } })).to.equal(before);
  });

  it("refuses a viewer (403) and someone else's mailbox (404), and stores nothing for them", async () => {
    const csv = `email\nintruder@${run}-deny.sk\n`;
    const viewer = await importRequest(app, box.viewer, box.account.id, csv);
    expect(viewer.status).to.equal(403);
    expect(viewer.body.error.code).to.equal('email_account_forbidden');
    const outsider = await importRequest(app, box.outsider, box.account.id, csv);
    expect(outsider.status).to.equal(404);
    expect(outsider.body.error.message).to.equal('Emailový účet neexistuje');
    // The outsider learns nothing about the file either: an unreadable one is the same 404.
    expect((await importRequest(app, box.outsider, box.account.id, '')).status).to.equal(404);
    expect((await contactsOf(app, box.owner, box.account.id)).has(`intruder@${run}-deny.sk`)).to.equal(false);
  });
});
