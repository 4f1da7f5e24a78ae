import { z } from 'zod';
import { timestamp, uuid } from '../shared/response-fields.js';

const recipient = z.object({ email: z.string(), name: z.string().nullable() }).meta({ id: 'DraftRecipient' });

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
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'EmailDraft' });

export const draftData = z.object({ draft: draftSchema });

export type DraftResponse = z.input<typeof draftSchema>;
export type DraftData = z.input<typeof draftData>;
