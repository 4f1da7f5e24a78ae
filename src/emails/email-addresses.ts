import type { AddressEntry, EmailRecord } from './email-records.js';

export interface AddressLists {
  from: AddressEntry[];
  to: AddressEntry[];
  cc: AddressEntry[];
  replyTo: AddressEntry[];
}

/**
 * The address lists of an email: as the sync stored them (migration 0020), or, for rows stored
 * before, split from the display strings "Name <a@b.sk>, c@d.sk" as well as they allow (Cc and
 * Reply-To were not kept then: empty).
 */
export function addressListsOf(email: EmailRecord): AddressLists {
  const stored = email.addresses;
  if (stored) return { from: stored.from ?? [], to: stored.to ?? [], cc: stored.cc ?? [], replyTo: stored.replyTo ?? [] };
  return { from: splitDisplayList(email.from), to: splitDisplayList(email.to), cc: [], replyTo: [] };
}

/** A bare address, or a name (which may hold commas) followed by <address>, each ending at a comma or the end. */
const ENTRY = /\s*(?:([^\s,<>"]+@[^\s,<>"]+)|(.*?)\s*<([^<>\s]+@[^<>\s]+)>)\s*(?:,|$)/gy;

export function splitDisplayList(text: string | null): AddressEntry[] {
  if (!text) return [];
  const out: AddressEntry[] = [];
  ENTRY.lastIndex = 0;
  let match: RegExpExecArray | null;
  while (ENTRY.lastIndex < text.length && (match = ENTRY.exec(text)) !== null) {
    if (match[1]) out.push({ name: null, email: match[1] });
    else out.push({ name: unquote(match[2]?.trim() ?? '') || null, email: match[3] });
    if (match[0] === '') break;
  }
  return out;
}

/** "Kováč, Ján" → Kováč, Ján: a quoted display name (RFC 5322) without its quotes and escapes. */
function unquote(name: string): string {
  const quoted = /^"(.*)"$/s.exec(name);
  return quoted ? quoted[1].replace(/\\(.)/g, '$1').trim() : name;
}
