/**
 * vCards (3.0 and 4.0, RFC 2426 / RFC 6350; 2.1 as phones still write it) into RawContacts, parsed by
 * ical.js (Mozilla's parser of vCard and iCalendar: folded lines, escapes, both versions' value
 * types). The file is cut into cards first, so that one broken card is one invalid row and not a
 * refused file; a 2.1 card's quoted-printable values and bare parameters (TEL;CELL) are rewritten
 * into 3.0 syntax before parsing, since ical.js reads 3.0 and 4.0 only.
 */
import type ICAL from 'ical.js';
import { lazyRequire } from '../shared/lazy-require.js';
import type { RawContact } from './import-records.js';

/** Loaded on first use (ADR 0113). */
const ical = lazyRequire<typeof ICAL>('ical.js');

/** A jCard property: name, parameters, value type, then one or more values (a structured value is an array). */
type JCardProperty = [string, Record<string, string | string[]>, string, ...unknown[]];

export function readVCards(text: string): RawContact[] {
  const records: RawContact[] = [];
  let card: string[] | null = null;
  for (const line of text.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    if (/^BEGIN:VCARD\s*$/i.test(line)) card = [];
    else if (/^END:VCARD\s*$/i.test(line) && card) {
      records.push(readCard(card, records.length + 1));
      card = null;
    } else if (card) card.push(line);
  }
  // A last card without END:VCARD is a broken card, not a silent loss.
  if (card) records.push({ row: records.length + 1 });
  return records;
}

function readCard(lines: string[], row: number): RawContact {
  let properties: JCardProperty[];
  try {
    const parsed = ical().parse(['BEGIN:VCARD', ...fromVersion21(lines), 'END:VCARD', ''].join('\r\n')) as unknown as [string, JCardProperty[], unknown[]];
    properties = parsed[1];
  } catch {
    // No fields: the validation reports it as a card without an address.
    return { row };
  }
  const all = (name: string) => properties.filter((p) => p[0] === name);
  const text = (p: JCardProperty | undefined): string | undefined => {
    if (!p) return undefined;
    const value = Array.isArray(p[3]) ? (p[3] as unknown[]).find((v) => typeof v === 'string' && v.trim() !== '') : p[3];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const record: RawContact = { row };
  record.email = text(preferred(all('email')));
  record.name = text(all('fn')[0]) ?? nameFromN(all('n')[0]);
  // The export writes the address as FN of a contact without a name (FN is required): that is no name.
  if (record.name !== undefined && record.name.toLowerCase() === record.email?.toLowerCase()) record.name = undefined;
  record.phone = text(preferred(all('tel')))?.replace(/^tel:/i, '');
  record.company = text(all('org')[0]);
  record.title = text(all('title')[0]);
  record.notes = text(all('note')[0]);
  const tags = all('categories').flatMap((p) => p.slice(3).filter((v): v is string => typeof v === 'string' && v.trim() !== ''));
  if (tags.length > 0) record.tags = tags.map((t) => t.trim());
  return record;
}

/** The property marked preferred (4.0 PREF=1, 3.0 TYPE=pref), else the first. */
function preferred(properties: JCardProperty[]): JCardProperty | undefined {
  const isPreferred = (p: JCardProperty) => p[1].pref === '1' || [p[1].type ?? []].flat().some((t) => t.toLowerCase() === 'pref');
  return properties.find(isPreferred) ?? properties[0];
}

/** "Given Family" from N (family; given; additional; prefix; suffix) when a card has no FN. */
function nameFromN(p: JCardProperty | undefined): string | undefined {
  if (!p || !Array.isArray(p[3])) return undefined;
  const [family, given] = (p[3] as unknown[]).map((v) => (typeof v === 'string' ? v.trim() : ''));
  const name = [given, family].filter((v) => v !== '').join(' ');
  return name === '' ? undefined : name;
}

/**
 * vCard 2.1 into 3.0 syntax: bare parameters (TEL;CELL:) become TYPE=, and quoted-printable values
 * (ENCODING=QUOTED-PRINTABLE, soft line breaks "=" at the end of a line) are decoded as UTF-8.
 */
function fromVersion21(lines: string[]): string[] {
  if (!lines.some((l) => /^VERSION:2\.1\s*$/i.test(l))) return lines;
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (/^VERSION:/i.test(line)) {
      out.push('VERSION:3.0');
      continue;
    }
    const colon = line.indexOf(':');
    if (colon < 0) {
      out.push(line);
      continue;
    }
    const [name, ...params] = line.slice(0, colon).split(';');
    const qp = params.some((p) => /^(ENCODING=)?QUOTED-PRINTABLE$/i.test(p));
    let value = line.slice(colon + 1);
    if (qp) {
      while (value.endsWith('=') && i + 1 < lines.length) value = value.slice(0, -1) + lines[++i];
      value = decodeQuotedPrintable(value).replace(/\\/g, '\\\\').replace(/\r?\n/g, '\\n');
    }
    const kept = params.filter((p) => !/^(ENCODING=|CHARSET=)/i.test(p) && !/^QUOTED-PRINTABLE$/i.test(p)).map((p) => (p.includes('=') ? p : `TYPE=${p}`));
    line = [name, ...kept].join(';') + ':' + value;
    out.push(line);
  }
  return out;
}

function decodeQuotedPrintable(value: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const hex = value.slice(i + 1, i + 3);
    if (value[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(value[i], 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}
