/**
 * Who counts as a person worth a contact: rules on addresses (no-reply robots) and on messages
 * (bulk mail). Pure functions, so they are easy to reason about and to test.
 */
import type { Email, EmailAddress } from '../jmap/index.js';
import { stripUnsafeNameCharacters } from '../shared/text-safety.js';
import { cleanText } from './text-cleanup.js';

/**
 * The header properties the sync asks for; Email/get answers null when a header is absent.
 * RFC 8621 §4.1.2.3 allows asText only on unstructured headers: List-Unsubscribe (RFC 2369) is
 * fetched raw (Cyrus refuses asText there with invalidArguments).
 */
export const BULK_HEADER_PROPERTIES = ['header:List-Id:asText', 'header:List-Unsubscribe', 'header:Precedence:asText', 'header:Auto-Submitted:asText'] as const;

/** The longest address that fits RFC 5321 (and stays well inside our unique indexes). */
const MAX_ADDRESS_LENGTH = 254;
const MAX_NAME_LENGTH = 200;

/** Lower-cased and trimmed, or null when it is not something we could write to. */
export function normalizeAddress(raw: string | null | undefined): string | null {
  if (typeof raw !== 'string') return null;
  const address = raw.trim().toLowerCase();
  if (address.length < 3 || address.length > MAX_ADDRESS_LENGTH) return null;
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return null;

  if (/[\s<>,;"\x00-\x1f]/.test(address)) return null;
  return address;
}

/** Display name, or null when there is none or it merely repeats the address. */
export function displayName(entry: EmailAddress, address: string): string | null {
  // Control and bidi characters are stripped: a display name is shown to everyone who sees the mail (text-safety.ts).
  const name = stripUnsafeNameCharacters(cleanText(entry.name ?? '') ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^["']+|["']+$/g, '')
    .trim();
  if (!name || name.toLowerCase() === address) return null;
  return name.slice(0, MAX_NAME_LENGTH);
}

/**
 * Robots people cannot answer: noreply@, no-reply@, do_not_reply@, donotreply@, mailer-daemon@,
 * postmaster@, bounce(s)@ and the VERP forms (bounces+123@, bounce-abc@, info-noreply@).
 */
export function isNoReplyAddress(address: string): boolean {
  const local = address.slice(0, address.lastIndexOf('@'));
  const compact = local.replace(/[-_.+=]/g, '');
  if (compact.includes('noreply') || compact.includes('donotreply') || compact.includes('dontreply')) return true;
  if (compact.startsWith('mailerdaemon') || compact === 'postmaster') return true;
  return /^bounces?(?:[-+_.=]|$)/.test(local);
}

/** Mailing lists, newsletters and automatic mail (RFC 2369 List-*, RFC 3834 Auto-Submitted, Precedence). */
export function isBulkMail(email: Email): boolean {
  const header = (name: (typeof BULK_HEADER_PROPERTIES)[number]) => {
    const value = email[name];
    return typeof value === 'string' ? value.trim().toLowerCase() : '';
  };
  if (header('header:List-Id:asText') || header('header:List-Unsubscribe')) return true;
  if (['bulk', 'list', 'junk'].includes(header('header:Precedence:asText'))) return true;
  const autoSubmitted = header('header:Auto-Submitted:asText');
  // "no" may carry parameters ("no; comment"): only the keyword matters.
  return autoSubmitted !== '' && autoSubmitted.split(/[\s;]/)[0] !== 'no';
}

/** "Name <addr>, addr2": how the CRM shows a From or To line. */
export function formatAddressList(list: EmailAddress[] | null | undefined): string | null {
  if (!list || list.length === 0) return null;
  const parts = list.map((entry) => {
    const address = cleanText(entry.email ?? '')?.trim() ?? '';
    const name = cleanText(entry.name ?? '')
      ?.replace(/\s+/g, ' ')
      .trim();
    if (name && address && name.toLowerCase() !== address.toLowerCase()) return `${name} <${address}>`;
    return address || name || '';
  });
  const text = parts.filter(Boolean).join(', ');
  return text === '' ? null : text;
}
