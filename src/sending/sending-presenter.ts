import { z } from 'zod';
import { presentEmail } from '../emails/email-presenter.js';
import type { SendResult } from './email-sender-service.js';

const nullableText = z.string().nullable();
const dateTime = z.iso.datetime({ offset: true });

/** The email detail as GET /api/emails/:id presents it (dates as ISO 8601 text in JSON). */
export const emailDetailSchema = z
  .object({
    id: z.uuid(),
    accountId: z.uuid(),
    contactId: z.uuid(),
    threadId: nullableText,
    from: nullableText,
    to: nullableText,
    subject: nullableText,
    date: dateTime.nullable(),
    isRead: z.boolean(),
    readPending: z.boolean(),
    messageId: nullableText,
    inReplyTo: nullableText,
    body: nullableText,
    contactIds: z.array(z.uuid()),
    attachments: z.array(
      z.object({
        id: z.uuid(),
        name: nullableText,
        type: z.string(),
        size: z.number().int().min(0),
        inline: z.boolean().meta({ description: 'Shown within the body (Content-ID image) rather than as a file' }),
      }),
    ),
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  .meta({ id: 'EmailDetail' });

/** `data` of a 201 from POST /api/emails and POST /api/emails/:id/reply. */
export const sentEmailData = z
  .object({
    email: emailDetailSchema.nullable().meta({ description: 'The sent email as the CRM lists it (in the contact\'s thread); null when filed under nobody' }),
    sent: z.object({
      messageId: z.string().meta({ description: 'Message-ID of the sent email, without angle brackets' }),
      emailAccountId: z.uuid(),
      recipients: z.number().int().min(1).meta({ description: 'To, Cc and Bcc addresses together' }),
    }),
  })
  .meta({ id: 'SentEmail' });

export function presentSent(result: SendResult) {
  return {
    email: result.email ? presentEmail(result.email) : null,
    sent: { messageId: result.messageId, emailAccountId: result.emailAccountId, recipients: result.recipients },
  };
}

/** JSON turns Date into text: the presenter's return type, as the schema sees it. */
type Jsonified<T> = T extends Date ? string : T extends Array<infer U> ? Jsonified<U>[] : T extends object ? { [K in keyof T]: Jsonified<T[K]> } : T;
/** Compile-time check that the presenter and the documented schema agree (both directions). */
type Agrees<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const presenterMatchesSchema: Agrees<Jsonified<ReturnType<typeof presentSent>>, z.infer<typeof sentEmailData>> = true;
void presenterMatchesSchema;
