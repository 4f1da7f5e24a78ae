import { addressListsOf } from './email-addresses.js';
import type { AttachmentRecord, EmailRecord } from './email-records.js';
import type { AwaitingReplyResponse, EmailResponse, EmailSummaryResponse } from './email-responses.js';

export const PREVIEW_LENGTH = 200;

/** A one-line preview: whitespace collapsed, cut at a word boundary near PREVIEW_LENGTH characters. */
export function previewOf(text: string | null | undefined): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  if (flat.length <= PREVIEW_LENGTH) return flat;
  const cut = flat.slice(0, PREVIEW_LENGTH);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > PREVIEW_LENGTH * 0.6 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}

/** The fields a summary and a full email share. */
function common(email: EmailRecord): Omit<EmailSummaryResponse, 'preview'> {
  const { from, to } = addressListsOf(email);
  return {
    id: email.id,
    emailAccountId: email.emailAccountId,
    contactId: email.contactId,
    threadId: email.threadId,
    from,
    to,
    fromText: email.from,
    toText: email.to,
    subject: email.subject,
    hasAttachments: email.hasAttachments,
    date: email.date,
    isRead: email.isRead,
    /** The read state was changed here and the mail server has not confirmed it yet. */
    readPending: email.readPending,
    direction: email.outbound ? 'outbound' : 'inbound',
  };
}

/** List item: no body, only a short preview. */
export function presentEmailSummary(email: EmailRecord): EmailSummaryResponse {
  return { ...common(email), preview: previewOf(email.bodyStart ?? email.body) };
}

/** An awaiting thread's newest inbound email: its date is when the wait began (only dated emails are listed). */
export function presentAwaitingReply(email: EmailRecord): AwaitingReplyResponse {
  return { ...presentEmailSummary(email), waitingSince: email.date! };
}

/** Full email: body, headers for threading, every participating contact. */
export function presentEmail(email: EmailRecord): EmailResponse {
  const { cc, replyTo } = addressListsOf(email);
  return {
    ...common(email),
    cc,
    replyTo,
    messageId: email.messageId,
    inReplyTo: email.inReplyTo,
    body: email.body ?? null,
    html: email.html ?? null,
    blockedImages: email.blockedImages ?? 0,
    htmlOmitted: email.htmlOmitted ?? null,
    contactIds: email.contactIds ?? [],
    attachments: (email.attachments ?? []).map(presentAttachment),
    createdAt: email.createdAt,
    updatedAt: email.updatedAt,
  };
}

/** What the email detail lists of an attachment; download it from /api/emails/:id/attachments/:attachmentId. */
export function presentAttachment(a: AttachmentRecord) {
  return { id: a.id, name: a.name, type: a.type, size: a.size, inline: a.inline };
}
