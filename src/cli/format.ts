/** Sizes for people: 1 decimal above a kilobyte (binary units, as `ls -h` and `du -h` show them). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * Characters that steer a terminal or reorder what it shows: C0 controls and DEL, C1 controls
 * (U+0080-U+009F: U+009B is an 8-bit CSI that many terminals honour like ESC [), bidi embeddings,
 * overrides and isolates (U+202A-U+202E, U+2066-U+2069, LRM/RLM/ALM) and the Unicode line/paragraph
 * separators. Stored data (usernames tried at login, user agents, mail headers) may carry any of them.
 */
const TERMINAL_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
/** The same without newline and tab, for whole messages the command composed itself. */
const TERMINAL_UNSAFE_KEEP_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/** One cell or value for a terminal: every unsafe character becomes a space. */
export function terminalSafe(text: string): string {
  return text.replace(TERMINAL_UNSAFE, ' ');
}

/** A composed message (it may span lines): unsafe characters but newline and tab become a space. */
export function terminalSafeLines(text: string): string {
  return text.replace(TERMINAL_UNSAFE_KEEP_LINES, ' ');
}

/** What JSON.stringify leaves raw inside strings (it escapes C0 itself; its own newlines stay). */
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * JSON for stdout with the unsafe characters written as \u escapes: JSON.stringify escapes C0 only.
 * The parsed value is unchanged, so scripts still read exactly what is stored.
 */
export function terminalSafeJson(value: unknown, indent = 2): string {
  return JSON.stringify(value, null, indent).replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
