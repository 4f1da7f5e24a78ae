import { expect } from 'chai';
import { csvHeader, csvRows, vCards } from '../../src/contacts/export-format.js';
import { guardFormula, readImportFile, unguardFormula } from '../../src/contacts/import-file.js';
import { COMPANY_NOT_IMPORTED, planImport, type ExistingContact } from '../../src/contacts/import-plan.js';
import { validateRecord, validateRecords } from '../../src/contacts/import-rows.js';
import type { ExportContact } from '../../src/contacts/transfer-repository.js';
import { AppError } from '../../src/errors/app-errors.js';
import { isPhone, registrationNumberProblem, vatIdProblem } from '../../src/shared/party-fields.js';

const read = (text: string) => readImportFile(Buffer.from(text, 'utf8'));
const refusal = (text: string | Buffer) => {
  try {
    readImportFile(Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'));
  } catch (err) {
    return err instanceof AppError ? `${err.statusCode} ${err.message}` : String(err);
  }
  return 'accepted';
};

describe('unit: contact import and export', () => {
  describe('company and contact field rules', () => {
    it('checks the IČO check digit of the Slovak and Czech registers', () => {
      for (const valid of ['35763469', '31322832', '25596641', '00151742']) expect(registrationNumberProblem(valid), valid).to.equal(null);
      expect(registrationNumberProblem('35763468')).to.equal('IČO nemá platnú kontrolnú číslicu');
      expect(registrationNumberProblem('3576346')).to.equal('IČO musí mať presne 8 číslic');
      expect(registrationNumberProblem('3576346a')).to.equal('IČO musí mať presne 8 číslic');
    });

    it('takes SK + 10 digits, CZ + 8 to 10, other EU prefixes with their shape, and no other country', () => {
      for (const valid of ['SK2020273893', 'CZ25596641', 'CZ7103192745', 'DE123456789', 'ATU12345678', 'EL123456789', 'FR12345678901'])
        expect(vatIdProblem(valid), valid).to.equal(null);
      expect(vatIdProblem('SK202027389')).to.match(/^IČ DPH musí byť SK a 10 číslic/);
      expect(vatIdProblem('CZ1234567')).to.equal('IČ DPH pre CZ nemá platný tvar');
      expect(vatIdProblem('GB123456789')).to.match(/^IČ DPH musí začínať kódom krajiny EÚ/);
    });

    it('takes phone numbers as people write them, not words', () => {
      for (const valid of ['+421 905 123 456', '02/123 45 67', '(0)2-1234', '0905.123.456']) expect(isPhone(valid), valid).to.equal(true);
      for (const invalid of ['volajte', '12', '+421 905 ext. 12', '1'.repeat(51)]) expect(isPhone(invalid), invalid).to.equal(false);
    });
  });

  describe('reading a file', () => {
    it('tells the CSV separator from the header line and numbers rows as a spreadsheet does', () => {
      const semicolons = read('\uFEFFEmail;Meno\r\na@x.sk;Ján, st.\r\n\r\nb@x.sk;"dva\r\nriadky"\r\nc@x.sk;C\r\n');
      expect(semicolons.format).to.equal('csv');
      expect(semicolons.records).to.deep.equal([
        { row: 2, email: 'a@x.sk', name: 'Ján, st.' },
        { row: 4, email: 'b@x.sk', name: 'dva\r\nriadky' },
        { row: 5, email: 'c@x.sk', name: 'C' },
      ]);
      expect(read('name\temail\nA\ta@x.sk\n').records).to.deep.equal([{ row: 2, name: 'A', email: 'a@x.sk' }]);
    });

    it("drops the export's formula guard, and nothing else", () => {
      for (const value of ['=1+1', '+421', '-5', '@x', "'=already quoted", "''=twice", "'plain quote", 'plain']) expect(unguardFormula(guardFormula(value)), value).to.equal(value);
      expect(guardFormula('+421 905')).to.equal("'+421 905");
      expect(guardFormula("'plain")).to.equal("'plain");
      expect(guardFormula('\tTAB')).to.equal("'\tTAB");
    });

    it('refuses what is no address book, with a Slovak message', () => {
      expect(refusal('name,phone\nA,0905\n')).to.equal('400 Súbor nie je CSV s hlavičkou (name,email,phone,company,title,tags,notes) ani vCard');
      expect(refusal('  \n')).to.equal('400 Súbor je prázdny');
      expect(refusal('email\n')).to.equal('400 Súbor neobsahuje žiadny kontakt');
      expect(refusal('email,name\na@x.sk,"neuzavreté\n')).to.match(/^400 CSV sa nedá prečítať/);
      expect(refusal(Buffer.from([0xef, 0xbb, 0xbf, 0x65, 0xff]))).to.equal('400 Súbor nie je v kódovaní UTF-8 (v Exceli uložte ako „CSV UTF-8“)');
    });

    it('reads a broken card as a row without an address instead of refusing the file', () => {
      const file = read(
        'BEGIN:VCARD\r\nVERSION:3.0\r\nEMAIL:a@x.sk\r\nEND:VCARD\r\nBEGIN:VCARD\r\nVERSION:3.0\r\nEMAIL;=:zle\r\nEND:VCARD\r\nBEGIN:VCARD\r\nVERSION:3.0\r\nEMAIL:b@x.sk\r\n',
      );
      expect(file.records.map((r) => [r.row, r.email])).to.deep.equal([
        [1, 'a@x.sk'],
        [2, undefined],
        [3, undefined],
      ]);
    });
  });

  describe('rows and the plan', () => {
    it('validates tags and lengths, and refuses an address seen in an earlier row', () => {
      expect(validateRecord({ row: 2, email: ' A@X.SK ', tags: ['VIP', 'vip', ' nový '] })).to.deep.equal({ row: 2, email: 'a@x.sk', tags: ['VIP', 'nový'] });
      expect(validateRecord({ row: 3, email: 'a@x.sk', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) })).to.deep.equal({ row: 3, reason: 'Najviac 20 štítkov' });
      expect(validateRecord({ row: 4, email: 'a@x.sk', title: 'x'.repeat(201) })).to.deep.equal({ row: 4, reason: 'Funkcia môže mať najviac 200 znakov' });
      const { rows, invalid } = validateRecords([
        { row: 2, email: 'a@x.sk' },
        { row: 3, email: 'A@x.sk' },
      ]);
      expect(rows).to.have.length(1);
      expect(invalid).to.deep.equal([{ row: 3, reason: 'Adresa a@x.sk je v súbore už v riadku 2' }]);
    });

    it('never names or renames a company from a file: one and the same warning per row that gives one', () => {
      const known = (email: string) => ({ id: email, email, name: 'K', phone: null, title: null, notes: null, tags: [], company: 'Named, a.s.' });
      const existing = new Map<string, ExistingContact>([
        ['k@named.sk', known('k@named.sk')],
        ['l@named.sk', known('l@named.sk')],
      ]);
      const plan = planImport(
        [
          { row: 2, email: 'a@new.sk', company: 'Nová s.r.o.' },
          { row: 3, email: 'k@named.sk', company: 'Premenovaná' },
          // What the caller's own export says: no change, no warning.
          { row: 4, email: 'l@named.sk', company: 'named, A.S.' },
          { row: 5, email: 'c@new.sk' },
        ],
        existing,
      );
      expect(plan.creates.map((c) => c.email)).to.deep.equal(['a@new.sk', 'c@new.sk']);
      // The known contacts' rows give nothing but a company: nothing of them changes.
      expect(plan.unchanged).to.equal(2);
      expect(plan.warnings).to.deep.equal([
        { row: 2, reason: COMPANY_NOT_IMPORTED },
        { row: 3, reason: COMPANY_NOT_IMPORTED },
      ]);
    });
  });

  describe('writing a file', () => {
    const contact: ExportContact = { id: 'i', sort_key: 'a', email: 'a@x.sk', name: 'Á, B', phone: '+421 9', company: null, title: null, tags: ['x', 'y'], notes: 'n\nm' };

    it('writes CSV with a BOM, CRLF and quoted cells, and reads it back to the same values', () => {
      const text = csvHeader('semicolon') + csvRows([contact], 'semicolon');
      expect(text).to.equal('\uFEFFname;email;phone;company;title;tags;notes\r\nÁ, B;a@x.sk;\'+421 9;;;x, y;"n\nm"\r\n');
      const back = validateRecords(read(text).records).rows;
      expect(back).to.deep.equal([{ row: 2, email: 'a@x.sk', name: 'Á, B', phone: '+421 9', tags: ['x', 'y'], notes: 'n\nm' }]);
    });

    it('writes vCard 3.0 with CRLF that reads back to the same values', () => {
      const text = vCards([contact, { ...contact, email: 'b@x.sk', name: null, tags: [] }]);
      expect(text.startsWith('BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Á\\, B\r\n')).to.equal(true);
      const back = validateRecords(read(text).records).rows;
      expect(back).to.deep.equal([
        { row: 1, email: 'a@x.sk', name: 'Á, B', phone: '+421 9', tags: ['x', 'y'], notes: 'n\nm' },
        { row: 2, email: 'b@x.sk', phone: '+421 9', notes: 'n\nm' },
      ]);
    });
  });
});
