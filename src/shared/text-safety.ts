/**
 * Characters a name shown to other people must not hold (issue 52, finding 16): C0 and C1 control
 * characters (tab and line breaks included: a name is one line), DEL, and the bidirectional
 * embeddings, overrides and isolates U+202A-U+202E, U+2066-U+2069, which make a name display as
 * something else ("‮moc.kanb" shows as "bnak.com") in every client that shows it.
 *
 * What people type is refused (a 400 saying why: they can fix it); what arrives in mail is stripped
 * (the sync cannot ask the sender). Ordinary letters of any script, and the marks U+200E/U+200F that
 * only hint a direction, stay allowed.
 */
const UNSAFE_IN_NAME = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/u;
const UNSAFE_IN_NAME_ALL = new RegExp(UNSAFE_IN_NAME.source, 'gu');

export function hasUnsafeNameCharacters(value: string): boolean {
  return UNSAFE_IN_NAME.test(value);
}

/** The name without those characters (a line break or tab becomes a space, the rest goes). */
export function stripUnsafeNameCharacters(value: string): string {
  return value.replace(/[\t\n\v\f\r\u0085]+/g, ' ').replace(UNSAFE_IN_NAME_ALL, '');
}

/** The Slovak message of the refusal, naming the field. */
export const unsafeNameMessage = (label: string): string => `${label} nesmie obsahovať riadiace znaky ani znaky meniace smer textu`;
