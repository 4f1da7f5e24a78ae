/**
 * Reading an address book file (POST /api/contacts/import, crm-admin contacts import): the bytes are
 * decoded as UTF-8 (a byte order mark is dropped), the format is told from the content, never from the
 * name or the declared type (a vCard starts with BEGIN:VCARD, anything else must be a CSV whose header
 * names an email column), and each record becomes a RawContact with the row a spreadsheet shows it
 * in (CSV: the header is row 1; vCard: the card's position in the file, the first card is 1).
 * docs/adr/0131-contact-import-export.md.
 */
import type * as CsvParse from 'csv-parse/sync';
import { ValidationError } from '../errors/app-errors.js';
import { lazyRequire } from '../shared/lazy-require.js';
import type { ImportFormat, RawContact } from './import-records.js';
import { readVCards } from './import-vcard.js';

/** Loaded on first use (ADR 0113). */
const csvParse = lazyRequire<typeof CsvParse>('csv-parse/sync');

/** At most this many bytes and records per file: 10,000 rows import in a few seconds (bench/contacts-import-bench.ts). */
export const IMPORT_MAX_BYTES = 5 * 1024 * 1024;
export const IMPORT_MAX_ROWS = 10_000;

export interface ImportFile {
  format: ImportFormat;
  records: RawContact[];
}

const field = 'file';
const refuse = (message: string) => new ValidationError(message, [{ field, message }]);

const TOO_MANY_ROWS = `Súbor má viac ako ${IMPORT_MAX_ROWS.toLocaleString('sk-SK').replace(/\s/g, ' ')} kontaktov`;

export const NOT_AN_ADDRESS_BOOK = 'Súbor nie je CSV s hlavičkou (name,email,phone,company,title,tags,notes) ani vCard';

/** The columns a CSV may have, with the header names people write for them (case and diacritics aside). */
const COLUMN_NAMES: Record<Exclude<keyof RawContact, 'row'>, string[]> = {
  name: ['name', 'meno', 'meno a priezvisko', 'full name'],
  email: ['email', 'e-mail', 'mail', 'email address', 'e-mailova adresa', 'emailova adresa'],
  phone: ['phone', 'telefon', 'tel', 'tel.', 'mobil'],
  company: ['company', 'firma', 'spolocnost', 'organization', 'organizacia'],
  title: ['title', 'funkcia', 'pozicia', 'job title'],
  tags: ['tags', 'stitky', 'znacky', 'categories', 'kategorie'],
  notes: ['notes', 'note', 'poznamka', 'poznamky'],
};

const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .toLowerCase();

/** Decodes, detects and reads the file; a file that is neither format, empty, not UTF-8 or too long: 400. */
export function readImportFile(bytes: Buffer): ImportFile {
  if (bytes.length > IMPORT_MAX_BYTES) throw refuse(`Súbor je väčší ako ${IMPORT_MAX_BYTES / 1024 / 1024} MB`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    // Excel's "CSV (oddelený čiarkami)" writes Windows-1250: the user must pick "CSV UTF-8" instead.
    throw refuse('Súbor nie je v kódovaní UTF-8 (v Exceli uložte ako „CSV UTF-8“)');
  }
  if (text.trim() === '') throw refuse('Súbor je prázdny');
  const records = /^\s*BEGIN:VCARD/i.test(text) ? { format: 'vcf' as const, records: readVCards(text) } : { format: 'csv' as const, records: readCsv(text) };
  if (records.records.length === 0) throw refuse('Súbor neobsahuje žiadny kontakt');
  if (records.records.length > IMPORT_MAX_ROWS) throw refuse(TOO_MANY_ROWS);
  return records;
}

/** The separator of the header line: the one of `;`, `,` and tab it uses most (Excel in a Slovak locale writes `;`). */
function delimiterOf(headerLine: string): string {
  const counts = [';', ',', '\t'].map((d) => ({ d, n: headerLine.split(d).length - 1 }));
  counts.sort((a, b) => b.n - a.n);
  return counts[0].n > 0 ? counts[0].d : ',';
}

function readCsv(text: string): RawContact[] {
  const headerLine = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0];
  let table: string[][];
  try {
    table = csvParse().parse(text, { bom: true, delimiter: delimiterOf(headerLine), relax_column_count: true, skip_empty_lines: false });
  } catch (err) {
    const where = (err as { lines?: number }).lines;
    throw refuse(where ? `CSV sa nedá prečítať (riadok ${where}): neuzavreté úvodzovky alebo chybný riadok` : NOT_AN_ADDRESS_BOOK);
  }
  const [header = [], ...rows] = table;
  // Unknown columns are ignored (a spreadsheet export carries many); without an email column it is no address book.
  const columns = header.map((name) => {
    const folded = fold(name);
    return (Object.keys(COLUMN_NAMES) as Array<keyof typeof COLUMN_NAMES>).find((key) => COLUMN_NAMES[key].includes(folded));
  });
  if (!columns.includes('email')) throw refuse(NOT_AN_ADDRESS_BOOK);
  if (rows.length > IMPORT_MAX_ROWS) throw refuse(TOO_MANY_ROWS);
  const records: RawContact[] = [];
  rows.forEach((cells, i) => {
    // A line with nothing on it is no contact, but it keeps its row number (a spreadsheet shows it).
    if (cells.every((c) => c.trim() === '')) return;
    const record: RawContact = { row: i + 2 };
    cells.forEach((cell, c) => {
      const key = columns[c];
      const value = unguardFormula(cell).trim();
      if (!key || value === '' || record[key] !== undefined) return;
      if (key === 'tags') record.tags = splitTags(value);
      else record[key] = value;
    });
    records.push(record);
  });
  return records;
}

/** Tags in one cell: separated by commas or semicolons. */
export function splitTags(cell: string): string[] {
  return cell
    .split(/[,;]/)
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/**
 * OWASP CSV injection: a cell a spreadsheet would run as a formula (it starts with =, +, -, @, a tab
 * or a carriage return) is written with a leading single quote; a value that already starts with
 * quotes before such a character gets one more, so that unguardFormula gives back exactly the value.
 */
const FORMULA = /^'*[=+\-@\t\r]/;

export function guardFormula(value: string): string {
  return FORMULA.test(value) ? `'${value}` : value;
}

/** The inverse of guardFormula: one leading quote before a formula character is dropped. */
export function unguardFormula(cell: string): string {
  return cell.startsWith("'") && FORMULA.test(cell.slice(1)) ? cell.slice(1) : cell;
}
