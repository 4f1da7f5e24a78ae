import { z } from 'zod';
import { timestamp, uuid } from '../shared/response-fields.js';

const recipient = z.object({ email: z.string(), name: z.string().nullable() }).meta({ id: 'ScheduledRecipient' });

export const keptAttachmentSchema = z
  .object({ id: uuid, name: z.string(), type: z.string(), size: z.number().int().min(0) })
  .meta({ id: 'KeptAttachment', description: 'A file kept on the server until the message goes (its name as sent, its type judged by its content)' });

export const scheduledEmailSchema = z
  .object({
    id: uuid,
    status: z.enum(['scheduled', 'sending', 'sent', 'failed', 'cancelled']).meta({
      description:
        'scheduled: waits for sendAt (cancellable); sending: being sent, or its outcome is being checked at the mail server (not cancellable); ' +
        'sent; failed: did not go, failure says why; cancelled',
    }),
    sendAt: timestamp,
    cancellable: z.boolean().meta({ description: 'True while status is scheduled: DELETE /api/scheduled-emails/{id} stops it' }),
    kind: z.enum(['new', 'reply', 'forward']),
    emailAccountId: uuid.nullable().meta({ description: 'The mailbox it goes out from; null when that mailbox was removed' }),
    emailId: uuid.nullable().meta({ description: 'The email answered (reply) or forwarded' }),
    to: z.array(recipient).meta({ description: 'As given; empty for a reply that takes the original sender when it goes' }),
    cc: z.array(recipient),
    bcc: z.array(recipient),
    subject: z.string().nullable().meta({ description: 'As given (a template rendered); null: the default when it goes (a reply\'s "Re: ...")' }),
    attachments: z.array(keptAttachmentSchema).meta({ description: "Files kept until it goes (a forward carries the original's when it goes)" }),
    sentAt: timestamp.nullable(),
    sentEmailId: uuid.nullable().meta({ description: 'The sent email in the CRM (GET /api/emails/{id}), when it went and you may read it' }),
    failure: z
      .object({
        code: z.string().meta({
          description:
            'Why it did not go (or not yet): user_disabled, send_right_lost, account_removed, outcome_unknown (being checked, status sending), ' +
            'or the error code a send at once would answer (submission_refused, recipient_rejected, upstream_unavailable ...)',
        }),
        message: z.string().meta({ description: 'The same in Slovak, to show' }),
      })
      .nullable(),
    draftId: uuid.nullable().meta({ description: 'A draft holding its text and files: made when it was cancelled or failed (nothing typed is lost)' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'ScheduledEmail' });

export const scheduledEmailData = z.object({ scheduled: scheduledEmailSchema });

export type ScheduledEmailResponse = z.input<typeof scheduledEmailSchema>;
export type ScheduledEmailData = z.input<typeof scheduledEmailData>;
