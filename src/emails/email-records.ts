/** One address of a header, as the API lists it. */
export interface AddressEntry {
  name: string | null;
  email: string;
}

/** From, To, Cc and Reply-To as the sync stored them (migration 0020). */
export interface StoredAddresses {
  from?: AddressEntry[];
  to?: AddressEntry[];
  cc?: AddressEntry[];
  replyTo?: AddressEntry[];
}

/**
 * Why an HTML body was not answered: the page's HTML budget went to earlier emails (ask for the email
 * alone), cleaning it took longer than its time budget, or the server had too many bodies to clean.
 */
export type HtmlOmitted = 'page_limit' | 'time_budget' | 'busy';

/** An email as the service hands it out (camelCase); `body` only on full reads, `bodyStart` on lists. */
export interface EmailRecord {
  id: string;
  userId: string;
  emailAccountId: string;
  contactId: string;
  jmapId: string;
  messageId: string | null;
  threadId: string | null;
  inReplyTo: string | null;
  from: string | null;
  to: string | null;
  subject: string | null;
  isRead: boolean;
  readPending: boolean;
  /** Sent by the mailbox itself (through the CRM or held in its Sent mailbox), else received. */
  outbound: boolean;
  date: Date | null;
  hasAttachments: boolean;
  /** NULL on rows the sync stored before migration 0020. */
  addresses: StoredAddresses | null;
  createdAt: Date;
  updatedAt: Date;
  body?: string | null;
  /** The sanitised HTML body (full reads, filled by HtmlBodies); null when there is none or the mail server could not tell. */
  html?: string | null;
  /** Remote images held back in `html` (data-crm-src). */
  blockedImages?: number;
  /** Why `html` is null although the email has an HTML body (issue 52, finding 5); null otherwise. */
  htmlOmitted?: HtmlOmitted | null;
  /** The first characters of the body, enough for a preview (lists never load whole bodies). */
  bodyStart?: string | null;
  /** Every contact that took part (email_contacts), the main correspondent included. */
  contactIds?: string[];
  /** Attachment metadata (full reads only). */
  attachments?: AttachmentRecord[];
}

/** One attachment of a synced email: metadata only, the content is on the mail server (blobId). */
export interface AttachmentRecord {
  id: string;
  emailId: string;
  blobId: string;
  name: string | null;
  type: string;
  size: number;
  inline: boolean;
  /** Content-ID without angle brackets, for the HTML body's cid: references. */
  cid: string | null;
}

export interface AttachmentRow {
  id: string;
  email_id: string;
  blob_id: string;
  name: string | null;
  type: string;
  size: string | number;
  is_inline: boolean;
  cid: string | null;
}

export function toAttachmentRecord(row: AttachmentRow): AttachmentRecord {
  return { id: row.id, emailId: row.email_id, blobId: row.blob_id, name: row.name, type: row.type, size: Number(row.size), inline: row.is_inline, cid: row.cid };
}

export interface EmailRow {
  id: string;
  user_id: string;
  email_account_id: string;
  contact_id: string;
  jmap_id: string;
  message_id: string | null;
  thread_id: string | null;
  in_reply_to: string | null;
  from: string | null;
  to: string | null;
  subject: string | null;
  is_read: boolean;
  read_pending: boolean;
  outbound: boolean;
  date: Date | null;
  has_attachments: boolean;
  addresses: StoredAddresses | null;
  created_at: Date;
  updated_at: Date;
  body?: string | null;
  body_start?: string | null;
  contact_ids?: string[];
}

export function toEmailRecord(row: EmailRow): EmailRecord {
  return {
    id: row.id,
    userId: row.user_id,
    emailAccountId: row.email_account_id,
    contactId: row.contact_id,
    jmapId: row.jmap_id,
    messageId: row.message_id,
    threadId: row.thread_id,
    inReplyTo: row.in_reply_to,
    from: row.from,
    to: row.to,
    subject: row.subject,
    isRead: row.is_read,
    readPending: row.read_pending,
    outbound: row.outbound,
    date: row.date,
    hasAttachments: row.has_attachments,
    addresses: row.addresses,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.body !== undefined ? { body: row.body } : {}),
    ...(row.body_start !== undefined ? { bodyStart: row.body_start } : {}),
    ...(row.contact_ids !== undefined ? { contactIds: row.contact_ids } : {}),
  };
}
