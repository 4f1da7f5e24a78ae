import { expect } from 'chai';
import fc from 'fast-check';
import { asciiFallbackName, extensionOf, MAX_FILE_NAME_LENGTH, sanitiseFileName } from '../../src/timesheets/file-name.js';

describe('timesheet file names', () => {
  const cases: Array<[string, string]> = [
    ['../../etc/passwd.pdf', 'passwd.pdf'],
    ['C:\\Users\\jana\\Výkaz.xlsx', 'Výkaz.xlsx'],
    ['Výkaz "máj" 2026.pdf', 'Výkaz "máj" 2026.pdf'],
    ['a\u0000b\u0007c\u001b[31m.pdf', 'abc[31m.pdf'],
    ['invoice\u202eexe.pdf', 'invoiceexe.pdf'],
    ['  ..hidden.pdf  ', 'hidden.pdf'],
    ['tab\tand\nnewline.pdf', 'tab and newline.pdf'],
    ['report.pdf...', 'report.pdf'],
    ['..', ''],
    ['Ša\u0301rka.pdf', 'Šárka.pdf'],
    ['日本語の報告.xls', '日本語の報告.xls'],
  ];
  for (const [raw, expected] of cases) {
    it(`sanitises ${JSON.stringify(raw)} to ${JSON.stringify(expected)}`, () => {
      expect(sanitiseFileName(raw)).to.equal(expected);
    });
  }

  it('never returns a path separator, a control character or more than the maximum length', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 600 }), (raw) => {
        const name = sanitiseFileName(raw);
        expect(name).not.to.match(/[\\/\p{Cc}\p{Cf}]/u);
        expect(Array.from(name).length).to.be.at.most(MAX_FILE_NAME_LENGTH);
        expect(name.startsWith('.')).to.equal(false);
      }),
    );
  });

  it('keeps the extension when shortening and finds it case-insensitively', () => {
    const name = sanitiseFileName(`${'ž'.repeat(500)}.XLSX`);
    expect(Array.from(name)).to.have.length(MAX_FILE_NAME_LENGTH);
    expect(extensionOf(name)).to.equal('xlsx');
    expect(extensionOf('noextension')).to.equal('');
    expect(extensionOf('.pdf')).to.equal('');
  });

  it('makes a readable ASCII fallback', () => {
    expect(asciiFallbackName('Výkaz č. 5 – máj.pdf')).to.equal('Vykaz c. 5 _ maj.pdf');
  });
});
