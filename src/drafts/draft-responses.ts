import { z } from 'zod';
import { timestamp, uuid } from '../shared/response-fields.js';

const recipient = z.object({ email: z.string(), name: z.string().nullable() }).meta({ id: 'DraftRecipient' });

const draftFile = z
  .object({
    id: uuid,
    name: z.string(),
    type: z.string().meta({ description: 'Judged by the content where it can be, else as the browser said' }),
    size: z.number().int().meta({ description: 'Bytes' }),
  })
  .meta({ id: 'DraftAttachment' });

export const draftSchema = z
  .object({
    id: uuid,
    emailAccountId: uuid,
    replyToEmailId: uuid.nullable(),
    to: z.array(recipient),
    cc: z.array(recipient),
    bcc: z.array(recipient),
    subject: z.string(),
    text: z.string(),
    html: z.string().nullable(),
    attachments: z.array(draftFile).meta({ description: 'Files sent with it, in the order they were added (DELETE /api/drafts/{id}/attachments/{fileId} takes one off)' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'EmailDraft' });

export const draftData = z.object({ draft: draftSchema });

export type DraftResponse = z.input<typeof draftSchema>;
export type DraftData = z.input<typeof draftData>;
