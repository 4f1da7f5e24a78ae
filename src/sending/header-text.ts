/**
 * Text that ends up in a header of an outgoing message (display names, the subject). A CR or LF in
 * it would end the header line and let the rest write headers or even the body (issue 26): a member
 * typing "X\nReply-To: ..." as a recipient, or an outsider's Reply-To whose RFC 2047 name decodes to
 * CR/LF + "Content-Type: text/html", copied into a reply. Request input with such characters is
 * refused (schema); text copied from synced mail is cleaned here. Every display name and subject
 * of a draft passes through these functions (compose.ts); the mail server writes them as RFC 2047
 * encoded words where they are not plain ASCII.
 */

/** C0/C1 controls (CR, LF, NUL, ESC...), DEL, and the Unicode line and paragraph separators. */
export const CONTROL_CHARACTERS = /[\p{Cc}\p{Zl}\p{Zp}]/u;
const CONTROL_RUNS = /[\p{Cc}\p{Zl}\p{Zp}]+/gu;
/** Bidirectional overrides and isolates: they can make "Ana <evil@x>" read as someone else in a list. */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

/** Display names longer than this are cut (RFC 5322 lines stay short; nobody's name is longer). */
export const MAX_DISPLAY_NAME = 200;

export const CONTROL_CHARACTERS_MESSAGE = 'Text obsahuje riadiace znaky (napr. koniec riadka), ktoré nie sú povolené';

/** One line of visible text: controls become a space, runs of spaces one, no bidi overrides. */
export function headerText(value: string | null | undefined): string {
  return (value ?? '')
    .replace(CONTROL_RUNS, ' ')
    .replace(BIDI_CONTROLS, '')
    .replace(/\s{2,}/g, ' ')
    .trim();
}

/** A display name as it may go into From/To/Cc: one clean line, bounded; undefined when nothing is left. */
export function headerName(name: string | null | undefined): string | undefined {
  const clean = Array.from(headerText(name)).slice(0, MAX_DISPLAY_NAME).join('').trim();
  return clean === '' ? undefined : clean;
}
