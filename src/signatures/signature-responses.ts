import { z } from 'zod';
import { nullableTimestamp, uuid } from '../shared/response-fields.js';

export const signatureSchema = z
  .object({
    emailAccountId: uuid,
    text: z.string().meta({ description: 'Empty when no signature is set' }),
    html: z.string().nullable().meta({ description: 'As stored: already cleaned by the sanitiser; null: the text is used' }),
    updatedAt: nullableTimestamp.meta({ description: 'When it was last set; null: never set' }),
  })
  .meta({ id: 'EmailSignature' });

export const signatureData = z.object({ signature: signatureSchema });

export type SignatureData = z.input<typeof signatureData>;
