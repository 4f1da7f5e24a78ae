import { z } from 'zod';
import { nullableTimestamp, timestamp, uuid } from '../shared/response-fields.js';

/** One address of a header. */
export const addressSchema = z
  .object({
    name: z.string().nullable().meta({ description: 'Display name; null when the header gave none' }),
    email: z.string().meta({ description: 'The address as written in the header', example: 'jana.kovacova@firma.sk' }),
  })
  .meta({ id: 'EmailAddress' });

const addressList = (header: string) => z.array(addressSchema).meta({ description: `${header}, in header order (empty when absent)` });

const common = {
  id: uuid,
  emailAccountId: uuid.meta({ description: 'The email account the email was synced from' }),
  contactId: uuid.meta({ description: 'The main correspondent' }),
  threadId: z.string().nullable(),
  from: addressList('From'),
  to: addressList('To'),
  fromText: z.string().nullable().meta({ deprecated: true, description: 'Deprecated: From as one display string ("Name <a@b.sk>, ..."); use from' }),
  toText: z.string().nullable().meta({ deprecated: true, description: 'Deprecated: To as one display string; use to' }),
  subject: z.string().nullable(),
  hasAttachments: z.boolean().meta({ description: 'The email has files to download (inline images do not count)' }),
  date: nullableTimestamp,
  isRead: z.boolean(),
  readPending: z.boolean().meta({ description: 'The read state was changed here and the mail server has not confirmed it yet' }),
  direction: z.enum(['inbound', 'outbound']).meta({ description: 'outbound: sent by the mailbox itself (from the CRM, or held in its Sent mailbox); inbound: received' }),
};

/** A list item: no body, only a short preview. */
export const emailSummarySchema = z
  .object({ ...common, preview: z.string().meta({ description: 'About 200 characters of the body, whitespace collapsed' }) })
  .meta({ id: 'EmailSummary' });

/** An item of GET /api/emails/awaiting-reply: the newest inbound email of a thread nobody has answered yet. */
export const awaitingReplySchema = z
  .object({
    ...emailSummarySchema.shape,
    waitingSince: timestamp.meta({ description: "When the thread's newest inbound email arrived (its date): waiting since then" }),
  })
  .meta({ id: 'AwaitingReplyEmail' });

/** An attachment of a synced or sent email (metadata only; the content streams from the mail server). */
export const attachmentSchema = z
  .object({
    id: uuid,
    name: z.string().nullable(),
    type: z.string(),
    size: z.number().int().min(0),
    inline: z.boolean().meta({ description: 'Shown within the body (a Content-ID image the HTML refers to) rather than offered as a file' }),
  })
  .meta({ id: 'EmailAttachment', description: 'Download: GET /api/emails/{id}/attachments/{attachmentId}' });

/** A full email: body, headers for threading, every participating contact, attachments. */
export const emailSchema = z
  .object({
    ...common,
    messageId: z.string().nullable(),
    inReplyTo: z.string().nullable(),
    cc: addressList('Cc'),
    replyTo: addressList('Reply-To'),
    body: z.string().nullable().meta({ description: 'The text body (HTML turned into text where the email has no plain part)' }),
    html: z
      .string()
      .nullable()
      .meta({
        description:
          'The HTML body, sanitised (no scripts, event handlers, forms, frames, style sheets or javascript: URLs), read from the mail ' +
          'server on each request; null when the email has no HTML part or the mail server did not answer in time (show body). ' +
          'cid: images point at their attachment download URL. Remote images do not load: their address is in data-crm-src ' +
          "(swap it into src on the user's request, or ask again with remoteImages=1).",
      }),
    blockedImages: z.number().int().min(0).meta({ description: 'How many remote images html holds back in data-crm-src' }),
    htmlOmitted: z
      .enum(['page_limit', 'time_budget', 'busy'])
      .nullable()
      .meta({
        description:
          "Why html is null although the email has an HTML body: page_limit (the page's HTML budget, HTML_PAGE_MAX_BYTES, went to the " +
          'emails before it: GET /api/emails/{id} answers it alone), time_budget (cleaning it took too long: show body), busy (the ' +
          'server had too many bodies to clean: ask again). Null otherwise.',
      }),
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
export type AwaitingReplyResponse = z.input<typeof awaitingReplySchema>;
