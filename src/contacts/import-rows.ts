/**
 * The rules of one imported record (pure: test/unit/contact-import-rows.test.ts): the address as
 * POST /api/contacts takes it, the lengths of the contact's fields, a phone as companies take it
 * (src/shared/party-fields.ts), at most 20 tags of at most 50 characters. The first problem of a
 * record is its reason; an address seen in an earlier row of the file makes a later row invalid
 * (the key of a contact is mailbox + address, so the file must not say two things about one).
 */
import { isPhone, PHONE_MESSAGE } from '../shared/party-fields.js';
import { mailAddressField } from '../shared/validation.js';
import type { ImportRow, RawContact, RowProblem } from './import-records.js';

/** The address rule and messages of POST /api/contacts (contact-schemas.ts; a service-side file may not import a schema module). */
const contactEmailSchema = mailAddressField(
  { required: 'Email je povinný', tooLong: 'Email môže mať najviac 254 znakov', invalid: 'Neplatná emailová adresa' },
  { lowerCase: true },
);

export const MAX_TAGS = 20;
export const MAX_TAG = 50;
const LIMITS = { name: 200, company: 200, title: 200, notes: 10_000 } as const;
const LABELS = { name: 'Meno', company: 'Firma', title: 'Funkcia', notes: 'Poznámka' } as const;

export function validateRecords(records: readonly RawContact[]): { rows: ImportRow[]; invalid: RowProblem[] } {
  const rows: ImportRow[] = [];
  const invalid: RowProblem[] = [];
  const firstRowOf = new Map<string, number>();
  for (const record of records) {
    const checked = validateRecord(record);
    if ('reason' in checked) {
      invalid.push(checked);
      continue;
    }
    const earlier = firstRowOf.get(checked.email);
    if (earlier !== undefined) {
      invalid.push({ row: record.row, reason: `Adresa ${checked.email} je v súbore už v riadku ${earlier}` });
      continue;
    }
    firstRowOf.set(checked.email, record.row);
    rows.push(checked);
  }
  return { rows, invalid };
}

export function validateRecord(record: RawContact): ImportRow | RowProblem {
  const { row } = record;
  if (record.email === undefined) return { row, reason: 'Chýba email' };
  const email = contactEmailSchema.safeParse(record.email);
  if (!email.success) return { row, reason: email.error.issues[0]?.message ?? 'Neplatná emailová adresa' };
  const result: ImportRow = { row, email: email.data };
  for (const key of ['name', 'company', 'title', 'notes'] as const) {
    const value = record[key];
    if (value === undefined) continue;
    if (value.length > LIMITS[key]) return { row, reason: `${LABELS[key]} môže mať najviac ${LIMITS[key]} znakov` };
    result[key] = value;
  }
  if (record.phone !== undefined) {
    if (!isPhone(record.phone)) return { row, reason: PHONE_MESSAGE };
    result.phone = record.phone;
  }
  if (record.tags !== undefined) {
    const tags = uniqueTags(record.tags);
    if (tags.length > MAX_TAGS) return { row, reason: `Najviac ${MAX_TAGS} štítkov` };
    const long = tags.find((t) => t.length > MAX_TAG);
    if (long) return { row, reason: `Štítok môže mať najviac ${MAX_TAG} znakov` };
    // A comma or a semicolon inside a tag would split it when the export is read again.
    if (tags.some((t) => /[,;]/.test(t))) return { row, reason: 'Štítok nesmie obsahovať čiarku ani bodkočiarku' };
    if (tags.length > 0) result.tags = tags;
  }
  return result;
}

/** Tags without blanks and repeats (letter case aside: the first spelling stays). */
export function uniqueTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of tags) {
    const tag = raw.trim();
    const key = tag.toLocaleLowerCase('sk');
    if (tag === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(tag);
  }
  return out;
}
