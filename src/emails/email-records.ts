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
  date: Date | null;
  createdAt: Date;
  updatedAt: Date;
  body?: string | null;
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
}

export interface AttachmentRow {
  id: string;
  email_id: string;
  blob_id: string;
  name: string | null;
  type: string;
  size: string | number;
  is_inline: boolean;
}

export function toAttachmentRecord(row: AttachmentRow): AttachmentRecord {
  return { id: row.id, emailId: row.email_id, blobId: row.blob_id, name: row.name, type: row.type, size: Number(row.size), inline: row.is_inline };
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
  date: Date | null;
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
    date: row.date,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.body !== undefined ? { body: row.body } : {}),
    ...(row.body_start !== undefined ? { bodyStart: row.body_start } : {}),
    ...(row.contact_ids !== undefined ? { contactIds: row.contact_ids } : {}),
  };
}
