/**
 * The export's files (pure: test/unit/contact-export-format.test.ts), written so that importing them
 * into the same mailbox changes nothing (import-file.ts reads them back):
 * - CSV: UTF-8 with a byte order mark (Excel reads UTF-8 only then), the header
 *   name,email,phone,company,title,tags,notes, CRLF line ends, quoted where needed by csv-stringify,
 *   comma-separated or, for Excel in a Slovak locale, semicolon-separated. Every cell a spreadsheet
 *   would run as a formula is guarded (guardFormula, OWASP CSV injection).
 * - vCard 3.0 (RFC 2426, read by every address book), written by ical.js: FN (the address when the
 *   contact has no name), an empty N, EMAIL, TEL, ORG, TITLE, NOTE, CATEGORIES.
 */
import type * as CsvStringify from 'csv-stringify/sync';
import type ICAL from 'ical.js';
import { lazyRequire } from '../shared/lazy-require.js';
import { guardFormula } from './import-file.js';
import type { ExportContact } from './transfer-repository.js';

/** Loaded on first use (ADR 0113). */
const csvStringify = lazyRequire<typeof CsvStringify>('csv-stringify/sync');
const ical = lazyRequire<typeof ICAL>('ical.js');

export type ExportFormat = 'csv' | 'vcf';
export type CsvDelimiter = 'comma' | 'semicolon';

export const CSV_COLUMNS = ['name', 'email', 'phone', 'company', 'title', 'tags', 'notes'] as const;

const BOM = '\uFEFF';

// quoted_match: csv-stringify quotes a cell with the record delimiter (CRLF) but not one with a bare LF, where Excel would start a new row.
const stringify = (rows: string[][], delimiter: CsvDelimiter) =>
  csvStringify().stringify(rows, { delimiter: delimiter === 'semicolon' ? ';' : ',', record_delimiter: 'windows', quoted_match: /[\r\n]/ });

export function csvHeader(delimiter: CsvDelimiter): string {
  return BOM + stringify([[...CSV_COLUMNS]], delimiter);
}

export function csvRows(contacts: readonly ExportContact[], delimiter: CsvDelimiter): string {
  const rows = contacts.map((c) => [c.name, c.email, c.phone, c.company, c.title, c.tags.join(', '), c.notes].map((v) => guardFormula(v ?? '')));
  return rows.length === 0 ? '' : stringify(rows, delimiter);
}

export function vCards(contacts: readonly ExportContact[]): string {
  return contacts.map(vCard).join('');
}

function vCard(c: ExportContact): string {
  const text = (name: string, value: string | null) => (value === null || value === '' ? [] : [[name, {}, 'text', value]]);
  const properties = [
    ['version', {}, 'text', '3.0'],
    ['fn', {}, 'text', c.name ?? c.email],
    ['n', {}, 'text', ['', '', '', '', '']],
    ['email', { type: 'INTERNET' }, 'text', c.email],
    ...(c.phone ? [['tel', {}, 'phone-number', c.phone]] : []),
    ...(c.company ? [['org', {}, 'text', [c.company]]] : []),
    ...text('title', c.title),
    ...text('note', c.notes),
    ...(c.tags.length > 0 ? [['categories', {}, 'text', ...c.tags]] : []),
  ];
  return `${ical().stringify(['vcard', properties, []])}\r\n`;
}
