/**
 * Text from mail is anybody's text: PostgreSQL refuses NUL characters and unpaired surrogates in
 * `text` and `jsonb`, and one such message must not stop an account's sync forever.
 */
export function cleanText(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  // Almost all text has neither: one quick scan instead of two replacing ones (the sync cleans
  // every subject, name and body it stores).
  if (!SUSPECT.test(value)) return value;
  return value.replace(/\u0000/g, '').replace(LONE_SURROGATE, '\uFFFD');
}

const SUSPECT = /[\u0000\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** At most `maxBytes` of UTF-8, cut on a character boundary. */
export function capUtf8(value: string, maxBytes: number): string {
  if (value.length * 3 <= maxBytes || Buffer.byteLength(value, 'utf8') <= maxBytes) return value;
  let cut = Buffer.from(value, 'utf8').subarray(0, maxBytes).toString('utf8');
  // A multi-byte character cut in half decodes as U+FFFD at the end.
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return cut;
}

/** Identifiers go into btree indexes (limit ~2.7 KB): an absurdly long one is dropped, not truncated. */
export function cleanIdentifier(value: string | null | undefined, maxLength = 500): string | null {
  const text = cleanText(value)?.trim();
  if (!text || text.length > maxLength) return null;
  return text;
}
