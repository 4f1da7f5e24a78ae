/**
 * One JMAP Email → what the CRM stores about it, and who it was exchanged with. Decides nothing
 * that needs the database (suppressions, existing contacts): that is the batch writer's job.
 */
import type { Email, EmailAddress, EmailBodyPart } from '../jmap/index.js';
import { displayName, formatAddressList, isBulkMail, isNoReplyAddress, normalizeAddress, BULK_HEADER_PROPERTIES } from './address-rules.js';
import { extractBody } from './email-body.js';
import { cleanIdentifier, cleanText } from './text-cleanup.js';

export const EMAIL_PROPERTIES = [
  'id',
  'threadId',
  'mailboxIds',
  'keywords',
  'messageId',
  'inReplyTo',
  'from',
  'to',
  'cc',
  'subject',
  'receivedAt',
  'sentAt',
  'textBody',
  'bodyValues',
  'attachments',
  ...BULK_HEADER_PROPERTIES,
  'replyTo',
  // Not stored as lists, but counted among the participants (export, erasure, suppression filter).
  'sender',
  'bcc',
  'hasAttachment',
];

/** The body-part properties asked for: the text parts' need partId and type, attachments the rest. */
export const BODY_PART_PROPERTIES = ['partId', 'blobId', 'type', 'name', 'size', 'disposition', 'cid'];

/** An attachment as the CRM lists it (metadata only; the content stays on the mail server). */
export interface MappedAttachment {
  /** The part's place among the email's attachments: stable for one email, so replays insert nothing twice. */
  position: number;
  blobId: string;
  partId: string | null;
  name: string | null;
  type: string;
  size: number;
  disposition: string | null;
  cid: string | null;
  /** Shown in the body (an inline image referenced by Content-ID) rather than offered as a file. */
  inline: boolean;
}

/** The mailbox facts the mapper needs, from Mailbox/get. */
export interface MailboxRoles {
  /** Trash, Junk and Drafts: mail only there is left out. */
  excluded: Set<string>;
  /** Mail in the Sent mailbox was written by the account owner. */
  sent: Set<string>;
}

export interface Correspondent {
  email: string;
  name: string | null;
}

/** One address as the email detail lists it. */
export interface AddressEntry {
  name: string | null;
  email: string;
}

/** The address headers as lists (the "from"/"to" columns keep display strings for search and old clients). */
export interface MessageAddresses {
  from: AddressEntry[];
  to: AddressEntry[];
  cc: AddressEntry[];
  replyTo: AddressEntry[];
}

export interface MappedEmail {
  jmapId: string;
  /** False when the email sits only in Trash, Junk or Drafts: any local row must go. */
  included: boolean;
  messageId: string | null;
  threadId: string | null;
  inReplyTo: string | null;
  from: string | null;
  to: string | null;
  subject: string | null;
  body: string | null;
  isRead: boolean;
  date: Date | null;
  /**
   * The mailbox itself sent it: sent through the CRM (the sent writer), or it sits in the Sent mailbox.
   * A From naming the mailbox's own address proves nothing (anyone can write it; issue 52 finding 10),
   * so such mail in the INBOX is inbound, as is mail from a colleague's mailbox (ADR 0118).
   */
  outbound: boolean;
  /**
   * Everyone on any address header (From, Sender, Reply-To, To, Cc and, on mail the account sent, Bcc)
   * except the account itself (lower-cased, unique): whom an access request or an erasure finds it by.
   */
  participants: string[];
  /** Who the email was exchanged with, main correspondent first; empty for bulk mail. */
  correspondents: Correspondent[];
  attachments?: MappedAttachment[];
  /** JMAP's hasAttachment: parts a client should offer as downloads (inline images do not count). */
  hasAttachments: boolean;
  addresses: MessageAddresses;
}

export interface MapContext {
  roles: MailboxRoles;
  /** The account's own addresses, lower-cased. */
  ownAddresses: Set<string>;
  /** Set by the sent writer only: the CRM itself submitted this email, so it is the staff's whatever its mailboxes. */
  sentThroughCrm?: boolean;
}

export function mapEmail(email: Email, ctx: MapContext): MappedEmail {
  const mailboxIds = Object.keys(email.mailboxIds ?? {}).filter((id) => email.mailboxIds?.[id]);
  const included = mailboxIds.some((id) => !ctx.roles.excluded.has(id));
  const from = email.from ?? [];
  const recipients = [...(email.to ?? []), ...(email.cc ?? [])];
  const sentByOwner = ctx.sentThroughCrm === true || mailboxIds.some((id) => ctx.roles.sent.has(id));
  return {
    jmapId: email.id,
    included,
    messageId: cleanIdentifier(email.messageId?.[0]),
    threadId: cleanIdentifier(email.threadId),
    inReplyTo: cleanIdentifier(email.inReplyTo?.[0]),
    from: formatAddressList(email.from),
    to: formatAddressList(email.to),
    subject: cleanText(email.subject)?.slice(0, 2000) ?? null,
    body: extractBody(email),
    isRead: email.keywords?.$seen === true,
    date: parseDate(email.receivedAt) ?? parseDate(email.sentAt),
    outbound: sentByOwner,
    // From, To and Cc first (the order rows stored before Reply-To, Sender and Bcc counted already have).
    participants: uniqueAddresses([...from, ...recipients, ...otherAddressHeaders(email)], ctx),
    correspondents: isBulkMail(email) ? [] : people(sentByOwner ? recipients : from, ctx),
    ...withAttachments(email),
    addresses: {
      from: addressEntries(email.from),
      to: addressEntries(email.to),
      cc: addressEntries(email.cc),
      replyTo: addressEntries(email.replyTo),
    },
  };
}

/** Sender, Reply-To and Bcc: not whom the email is filed under, but people on it all the same. */
function otherAddressHeaders(email: Email): EmailAddress[] {
  return [...(email.sender ?? []), ...(email.replyTo ?? []), ...(email.bcc ?? [])];
}

/** The server's hasAttachment when it says; otherwise whether a part is a download rather than inline. */
function withAttachments(email: Email): Pick<MappedEmail, 'attachments' | 'hasAttachments'> {
  const attachments = mapAttachments(email.attachments);
  return { attachments, hasAttachments: typeof email.hasAttachment === 'boolean' ? email.hasAttachment : attachments.some((a) => !a.inline) };
}

/** Addresses as written in the header (case kept, at most 100 of them); entries without a usable address are left out. */
export function addressEntries(list: EmailAddress[] | null | undefined): AddressEntry[] {
  const out: AddressEntry[] = [];
  for (const entry of list ?? []) {
    const email = cleanText(entry.email ?? '')?.trim();
    if (!email || normalizeAddress(email) === null) continue;
    out.push({ name: displayName(entry, email.toLowerCase()), email });
    if (out.length === 100) break;
  }
  return out;
}

export function mapAttachments(parts: EmailBodyPart[] | undefined): MappedAttachment[] {
  const out: MappedAttachment[] = [];
  for (const [position, part] of (parts ?? []).entries()) {
    if (typeof part.blobId !== 'string' || part.blobId === '') continue;
    const disposition = clipped(part.disposition, 50, true);
    const cid = clipped(part.cid, 500);
    out.push({
      position,
      blobId: part.blobId,
      partId: part.partId ?? null,
      name: clipped(part.name, 500),
      type: clipped(part.type, 255, true) ?? 'application/octet-stream',
      size: typeof part.size === 'number' && part.size >= 0 ? part.size : 0,
      disposition,
      cid,
      inline: disposition === 'inline' || (disposition === null && cid !== null),
    });
  }
  return out;
}

/** A part's header value cleaned (cleanText), optionally lower-cased, cut to `max` characters; null when empty. */
function clipped(value: string | null | undefined, max: number, lowerCase = false): string | null {
  const text = cleanText(value ?? '');
  return (lowerCase ? text?.toLowerCase() : text)?.slice(0, max) || null;
}

function uniqueAddresses(list: EmailAddress[], ctx: MapContext): string[] {
  const out = new Set<string>();
  for (const entry of list) {
    const address = normalizeAddress(entry.email);
    if (address && !ctx.ownAddresses.has(address)) out.add(address);
  }
  return [...out];
}

/** Addresses a person would answer: not the account itself, not a no-reply robot; first name wins. */
function people(list: EmailAddress[], ctx: MapContext): Correspondent[] {
  const byAddress = new Map<string, Correspondent>();
  for (const entry of list) {
    const address = normalizeAddress(entry.email);
    if (!address || ctx.ownAddresses.has(address) || isNoReplyAddress(address)) continue;
    const existing = byAddress.get(address);
    if (!existing) byAddress.set(address, { email: address, name: displayName(entry, address) });
    else existing.name ??= displayName(entry, address);
  }
  return [...byAddress.values()];
}

function parseDate(value: string | null | undefined): Date | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** Mailbox/get list → the roles the sync cares about (RFC 8621 role names). */
export function mailboxRoles(list: Array<{ id: string; role?: string | null }>): MailboxRoles {
  const roles: MailboxRoles = { excluded: new Set(), sent: new Set() };
  for (const mailbox of list) {
    const role = mailbox.role?.toLowerCase();
    if (role === 'trash' || role === 'junk' || role === 'drafts') roles.excluded.add(mailbox.id);
    else if (role === 'sent') roles.sent.add(mailbox.id);
  }
  return roles;
}
