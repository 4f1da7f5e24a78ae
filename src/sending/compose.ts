/**
 * The message itself, from what the user wrote and (for a reply) the email answered: recipients,
 * subject, threading headers and the JMAP Email/set create object. Pure functions.
 */
import { randomUUID } from 'node:crypto';
import type { Email, EmailAddress, Envelope } from '../jmap/index.js';
import { headerName, headerText } from './header-text.js';

export interface Recipient {
  email: string;
  name?: string;
}

export interface Recipients {
  to: Recipient[];
  cc: Recipient[];
  bcc: Recipient[];
}

export interface OutgoingAttachment {
  blobId: string;
  name: string;
  type: string;
  size: number;
  /** Of the content, for the request's Idempotency-Key hash. */
  sha256?: string;
}

export interface DraftInput extends Recipients {
  from: { email: string; name?: string };
  subject: string;
  text: string;
  html?: string;
  /** The email answered, for In-Reply-To and References. */
  original?: Pick<Email, 'messageId' | 'references' | 'inReplyTo'>;
  attachments: OutgoingAttachment[];
  messageId: string;
  sentAt: Date;
}

/** Forward prefixes of common clients: "Fwd:", "Fw:", "WG:" (German), "TR:" (French), "PD:" (Polish). */
const FORWARD_PREFIX = /^\s*(?:fwd?|wg|tr|pd)\s*:\s*/i;

/** "Fwd: " exactly once in front of the forwarded subject. */
export function forwardSubject(original: string | null | undefined): string {
  let subject = headerText(original);
  while (FORWARD_PREFIX.test(subject)) subject = subject.replace(FORWARD_PREFIX, '');
  return `Fwd: ${subject}`.trim();
}

/** References kept at most: the first (the thread's root) and the most recent ones (RFC 5322 §3.6.4). */
const MAX_REFERENCES = 20;
/** Reply prefixes of common clients: "Re:", "RE[2]:", "AW:" (German), "Odp:" (Polish), "SV:" (Nordic). */
const REPLY_PREFIX = /^\s*(?:re|aw|odp|sv)\s*(?:\[\d+\])?\s*:\s*/i;

/** "Re: " exactly once, whatever prefixes the original carried. */
export function replySubject(original: string | null | undefined): string {
  let subject = headerText(original);
  while (REPLY_PREFIX.test(subject)) subject = subject.replace(REPLY_PREFIX, '');
  return `Re: ${subject}`.trim();
}

/** The parent's References (or In-Reply-To) followed by its Message-ID, without duplicates. */
export function replyReferences(original: Pick<Email, 'messageId' | 'references' | 'inReplyTo'>): string[] {
  const chain = [...(original.references ?? original.inReplyTo ?? []), ...(original.messageId ?? [])];
  const unique = [...new Set(chain.filter((id) => typeof id === 'string' && id !== ''))];
  return unique.length <= MAX_REFERENCES ? unique : [unique[0], ...unique.slice(-(MAX_REFERENCES - 1))];
}

/**
 * Who a reply goes to: the original's Reply-To, else its From; a reply to mail the account itself
 * sent goes to that mail's recipients. Reply-all adds the other To and Cc addresses as Cc. The
 * account's own addresses are never among them.
 */
export function replyRecipients(original: Pick<Email, 'from' | 'replyTo' | 'to' | 'cc'>, own: Set<string>, replyAll: boolean): Recipients {
  const from = original.from ?? [];
  const sentByUs = from.some((a) => own.has(a.email.toLowerCase()));
  const primary = sentByUs ? (original.to ?? []) : original.replyTo?.length ? original.replyTo : from;
  const seen = new Set(own);
  const to = pick(primary, seen);
  const cc = replyAll ? pick([...(original.to ?? []), ...(original.cc ?? [])], seen) : [];
  return { to, cc, bcc: [] };
}

/** Unique addresses (case-insensitive) not yet in `seen`, which they are added to. */
export function pick(list: readonly (EmailAddress | Recipient)[], seen: Set<string>): Recipient[] {
  const out: Recipient[] = [];
  for (const entry of list) {
    const key = entry.email?.trim().toLowerCase();
    if (!key || seen.has(key)) continue;
    seen.add(key);
    out.push(entry.name ? { email: entry.email.trim(), name: entry.name } : { email: entry.email.trim() });
  }
  return out;
}

/** A Message-ID in the sending account's domain (JMAP form: without angle brackets). */
export function newMessageId(fromAddress: string): string {
  const domain = fromAddress.slice(fromAddress.lastIndexOf('@') + 1) || 'crm.invalid';
  return `${randomUUID()}@${domain}`;
}

/**
 * The Email/set create object (mailboxes and keywords are added by createAndSubmit). Bcc is NOT a
 * header: Cyrus would deliver the header to every recipient; Bcc recipients are in the envelope only.
 */
export function draftEmail(input: DraftInput): Record<string, unknown> {
  const bodyValues: Record<string, { value: string }> = { text: { value: input.text } };
  const draft: Record<string, unknown> = {
    from: [address(input.from)],
    to: input.to.map(address),
    subject: headerText(input.subject),
    messageId: [input.messageId],
    sentAt: input.sentAt.toISOString(),
    bodyValues,
    textBody: [{ partId: 'text', type: 'text/plain' }],
  };
  if (input.cc.length > 0) draft.cc = input.cc.map(address);
  if (input.html !== undefined) {
    bodyValues.html = { value: input.html };
    draft.htmlBody = [{ partId: 'html', type: 'text/html' }];
  }
  if (input.original) {
    if (input.original.messageId?.length) draft.inReplyTo = [...input.original.messageId];
    const references = replyReferences(input.original);
    if (references.length > 0) draft.references = references;
  }
  if (input.attachments.length > 0) {
    draft.attachments = input.attachments.map((a) => ({ blobId: a.blobId, type: a.type, name: a.name, disposition: 'attachment' }));
  }
  return draft;
}

/** SMTP envelope: every To, Cc and Bcc address once. */
export function envelopeOf(from: string, recipients: Recipients): Envelope {
  const seen = new Set<string>();
  const rcptTo = pick([...recipients.to, ...recipients.cc, ...recipients.bcc], seen).map((r) => r.email);
  return { mailFrom: from, rcptTo };
}

/** Every address of a draft's headers passes here: its name cleaned of anything that could end the line. */
function address(r: Recipient): { email: string; name?: string } {
  const name = headerName(r.name);
  return name ? { email: r.email, name } : { email: r.email };
}
