/**
 * Just enough MIME for the JMAP fake (test/support/jmap-fake/): a raw RFC 5322 message into a tree of
 * parts with decoded bodies, header values decoded the way RFC 8621 §4.1.2 asks (asText, asAddresses,
 * asMessageIds, asDate), and part ids and blob ids as Cyrus 3.6 gives them (IMAP section numbers; "G" +
 * the SHA-1 of the decoded content). The contract suite (test/contract/) holds it to what Cyrus answers.
 */
import crypto from 'node:crypto';

export interface Header {
  name: string;
  /** Everything after the colon, folding kept (what Email/get's `headers` and `header:X:asRaw` show). */
  value: string;
}

export interface MimePart {
  headers: Header[];
  /** Lower case, e.g. text/plain. */
  type: string;
  params: Record<string, string>;
  disposition: string | null;
  dispositionParams: Record<string, string>;
  /** The decoded content (transfer encoding undone); empty for a multipart. */
  body: Buffer;
  subParts: MimePart[];
  /** IMAP section number ("1", "1.2"); null for a multipart. */
  partId: string | null;
}

export const sha1 = (data: Buffer | string): string => crypto.createHash('sha1').update(data).digest('hex');
export const blobIdOf = (data: Buffer): string => `G${sha1(data)}`;

/** The whole message (a Buffer of the raw bytes, CRLF or LF line ends). */
export function parseMessage(raw: Buffer): MimePart {
  const root = parsePart(raw.toString('latin1'), 'text/plain');
  numberParts(root, '');
  return root;
}

function parsePart(text: string, defaultType: string): MimePart {
  const split = /\r?\n\r?\n/.exec(text);
  const head = split ? text.slice(0, split.index) : text;
  const bodyText = split ? text.slice(split.index + split[0].length) : '';
  const headers = parseHeaders(head);
  const [type, params] = parameterised(headerValue(headers, 'content-type') ?? defaultType);
  const rawDisposition = headerValue(headers, 'content-disposition');
  const [disposition, dispositionParams] = rawDisposition ? parameterised(rawDisposition) : [null, {}];
  const part: MimePart = { headers, type: type.includes('/') ? type : 'text/plain', params, disposition, dispositionParams, body: Buffer.alloc(0), subParts: [], partId: null };
  if (part.type.startsWith('multipart/') && params.boundary) {
    const childDefault = part.type === 'multipart/digest' ? 'message/rfc822' : 'text/plain';
    part.subParts = splitMultipart(bodyText, params.boundary).map((p) => parsePart(p, childDefault));
  } else {
    part.body = decodeTransfer(bodyText, (headerValue(headers, 'content-transfer-encoding') ?? '7bit').trim().toLowerCase());
  }
  return part;
}

/** IMAP section numbers: the leaves of a multipart are 1, 2, ...; a lone body is "1". */
function numberParts(part: MimePart, prefix: string): void {
  if (part.subParts.length === 0 && !part.type.startsWith('multipart/')) {
    part.partId = prefix || '1';
    return;
  }
  part.subParts.forEach((child, i) => numberParts(child, prefix ? `${prefix}.${i + 1}` : String(i + 1)));
}

export function parseHeaders(head: string): Header[] {
  const headers: Header[] = [];
  for (const line of head.split(/(?<=\n)/)) {
    if (/^[ \t]/.test(line) && headers.length > 0) headers[headers.length - 1].value += line;
    else {
      const colon = line.indexOf(':');
      if (colon > 0) headers.push({ name: line.slice(0, colon), value: line.slice(colon + 1) });
    }
  }
  for (const h of headers) h.value = h.value.replace(/\r?\n$/, '').replace(/(?<!\r)\n/g, '\r\n');
  return headers;
}

export function headerValue(headers: Header[], name: string): string | undefined {
  return headers.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value;
}

function splitMultipart(body: string, boundary: string): string[] {
  const parts: string[] = [];
  const delimiter = `--${boundary}`;
  let current: string[] | null = null;
  for (const line of body.split(/\r?\n/)) {
    if (line.trimEnd() === `${delimiter}--`) break;
    if (line.trimEnd() === delimiter) {
      if (current) parts.push(current.join('\r\n'));
      current = [];
    } else current?.push(line);
  }
  if (current) parts.push(current.join('\r\n'));
  return parts;
}

function decodeTransfer(text: string, encoding: string): Buffer {
  if (encoding === 'base64') return Buffer.from(text.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
  if (encoding === 'quoted-printable') {
    const soft = text.replace(/=\r?\n/g, '');
    return Buffer.from(soft.replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))).replace(/(?<!\r)\n/g, '\r\n'), 'latin1');
  }
  return Buffer.from(text.replace(/(?<!\r)\n/g, '\r\n'), 'latin1');
}

/** "text/plain; charset=utf-8; name*=UTF-8''%C5%BE.pdf" → type and decoded parameters (RFC 2231 included). */
export function parameterised(value: string): [string, Record<string, string>] {
  const unfolded = value.replace(/\r\n[ \t]/g, ' ').trim();
  const tokens = splitParams(unfolded);
  const type = (tokens.shift() ?? '').trim().toLowerCase();
  const params: Record<string, string> = {};
  const continued: Record<string, Array<{ index: number; text: string; encoded: boolean }>> = {};
  for (const token of tokens) {
    const eq = token.indexOf('=');
    if (eq < 0) continue;
    const key = token.slice(0, eq).trim().toLowerCase();
    let val = token.slice(eq + 1).trim();
    if (val.startsWith('"')) val = val.slice(1, -1).replace(/\\(.)/g, '$1');
    const m = /^(.+?)(?:\*(\d+))?(\*)?$/.exec(key);
    if (m && (m[2] !== undefined || m[3])) (continued[m[1]] ??= []).push({ index: Number(m[2] ?? 0), text: val, encoded: Boolean(m[3]) });
    else params[key] = decodeWords(val);
  }
  for (const [key, pieces] of Object.entries(continued)) {
    pieces.sort((a, b) => a.index - b.index);
    let charset = 'utf-8';
    const bytes: Buffer[] = pieces.map((p, i) => {
      let text = p.text;
      if (p.encoded && i === 0) {
        const q = /^([^']*)'[^']*'(.*)$/.exec(text);
        if (q) [charset, text] = [q[1] || 'utf-8', q[2]];
      }
      return p.encoded
        ? Buffer.from(
            text.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
            'latin1',
          )
        : Buffer.from(text, 'latin1');
    });
    params[key] = decodeCharset(Buffer.concat(bytes), charset);
  }
  return [type, params];
}

function splitParams(value: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (ch === '"' && value[i - 1] !== '\\') quoted = !quoted;
    if (ch === ';' && !quoted) {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out.filter((t) => t.trim() !== '');
}

export function decodeCharset(bytes: Buffer, charset: string | undefined): string {
  const label = (charset ?? 'utf-8').toLowerCase();
  try {
    return new TextDecoder(label === 'us-ascii' ? 'utf-8' : label).decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}

/** RFC 2047 encoded words (B and Q); whitespace between two encoded words goes. */
export function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?*]+)(?:\*[^?]*)?\?([BbQq])\?([^?]*)\?=/g, (_m, charset: string, kind: string, text: string) => {
      const bytes =
        kind.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64')
          : Buffer.from(
              text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_q, hex: string) => String.fromCharCode(parseInt(hex, 16))),
              'latin1',
            );
      return decodeCharset(bytes, charset);
    });
}

/** RFC 8621 asText: unfolded, encoded words decoded, outer whitespace trimmed. */
export function asText(raw: string): string {
  return decodeWords(raw.replace(/\r?\n(?=[ \t])/g, ''))
    .replace(/^[ \t]+|[ \t]+$/g, '')
    .normalize('NFC');
}

export interface Address {
  name: string | null;
  email: string;
}

/** RFC 8621 asAddresses: groups flattened, names decoded and unquoted. */
export function asAddresses(raw: string): Address[] {
  const text = raw.replace(/\r?\n(?=[ \t])/g, '');
  const out: Address[] = [];
  for (const entry of splitAddressList(text)) {
    const angle = /^(.*)<([^>]*)>\s*$/.exec(entry);
    if (angle) {
      const name = unquote(angle[1].trim());
      out.push({ name: name === '' ? null : decodeWords(name), email: angle[2].trim() });
    } else if (entry.includes('@')) out.push({ name: null, email: entry.replace(/\(.*?\)/g, '').trim() });
  }
  return out;
}

function splitAddressList(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  let angle = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"' && text[i - 1] !== '\\') quoted = !quoted;
    if (!quoted && ch === '<') angle++;
    if (!quoted && ch === '>') angle--;
    // A group ("team: a@b, c@d;") only frames its members.
    if (!quoted && angle === 0 && ch === ':' && !current.includes('@')) {
      current = '';
      continue;
    }
    if (!quoted && angle === 0 && (ch === ',' || ch === ';')) {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out.map((s) => s.trim()).filter(Boolean);
}

function unquote(name: string): string {
  return name.startsWith('"') && name.endsWith('"') ? name.slice(1, -1).replace(/\\(.)/g, '$1') : name;
}

/** RFC 8621 asMessageIds: the ids without angle brackets, or null when there is none. */
export function asMessageIds(raw: string): string[] | null {
  const ids = [...raw.matchAll(/<([^<>]+)>/g)].map((m) => m[1].trim());
  return ids.length > 0 ? ids : null;
}

/** RFC 8621 asDate: the header's own offset kept, "Z" for +0000 (as Cyrus writes it). */
export function asDate(raw: string): string | null {
  const text = raw.replace(/\r?\n(?=[ \t])/g, '').trim();
  const m = /(?:\w+,\s*)?(\d{1,2})\s+(\w{3})\s+(\d{4})\s+(\d{2}):(\d{2})(?::(\d{2}))?\s*([+-]\d{4}|[A-Z]+)?/.exec(text);
  if (!m) return null;
  const month = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'].indexOf(m[2].toLowerCase());
  if (month < 0) return null;
  const zone = m[7] && /^[+-]\d{4}$/.test(m[7]) ? m[7] : '+0000';
  const pad = (n: number | string) => String(n).padStart(2, '0');
  const local = `${m[3]}-${pad(month + 1)}-${pad(m[1])}T${m[4]}:${m[5]}:${m[6] ?? '00'}`;
  return zone === '+0000' || zone === '-0000' ? `${local}Z` : `${local}${zone.slice(0, 3)}:${zone.slice(3)}`;
}

/** A UTCDate as Cyrus writes it: whole seconds, "Z". */
export function utcDate(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
