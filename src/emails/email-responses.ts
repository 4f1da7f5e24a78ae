import { z } from 'zod';
import { nullableTimestamp, timestamp, uuid } from '../shared/response-fields.js';

const common = {
  id: uuid,
  emailAccountId: uuid.meta({ description: 'The email account the email was synced from' }),
  contactId: uuid.meta({ description: 'The main correspondent' }),
  threadId: z.string().nullable(),
  from: z.string().nullable(),
  to: z.string().nullable(),
  subject: z.string().nullable(),
  date: nullableTimestamp,
  isRead: z.boolean(),
  readPending: z.boolean().meta({ description: 'The read state was changed here and the mail server has not confirmed it yet' }),
};

/** A list item: no body, only a short preview. */
export const emailSummarySchema = z
  .object({ ...common, preview: z.string().meta({ description: 'About 200 characters of the body, whitespace collapsed' }) })
  .meta({ id: 'EmailSummary' });

/** An attachment of a synced or sent email (metadata only; the content streams from the mail server). */
export const attachmentSchema = z
  .object({
    id: uuid,
    name: z.string().nullable(),
    type: z.string(),
    size: z.number().int().min(0),
    inline: z.boolean().meta({ description: 'Shown within the body (Content-ID image) rather than as a file' }),
  })
  .meta({ id: 'EmailAttachment', description: 'Download: GET /api/emails/{id}/attachments/{attachmentId}' });

/** A full email: body, headers for threading, every participating contact, attachments. */
export const emailSchema = z
  .object({
    ...common,
    messageId: z.string().nullable(),
    inReplyTo: z.string().nullable(),
    body: z.string().nullable(),
    contactIds: z.array(uuid).meta({ description: 'Every contact that took part, the main correspondent first' }),
    attachments: z.array(attachmentSchema),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Email' });

/** data of GET/PATCH /api/emails/{id}. */
export const emailData = z.object({ email: emailSchema });

/** data of POST /api/emails/contact/{contactId}/read. */
export const markReadData = z.object({
  updated: z.number().int().min(0).meta({ description: 'Emails that changed to read' }),
  pushed: z.number().int().min(0).meta({ description: 'Of those, confirmed by the mail server already' }),
  pending: z.number().int().min(0).meta({ description: 'Of those, still to be written to the mail server (readPending)' }),
});

export type EmailSummaryResponse = z.input<typeof emailSummarySchema>;
export type EmailResponse = z.input<typeof emailSchema>;
export type EmailData = z.input<typeof emailData>;
export type MarkReadData = z.input<typeof markReadData>;
