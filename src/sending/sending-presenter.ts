import { z } from 'zod';
import { presentEmail } from '../emails/email-presenter.js';
import { emailSchema } from '../emails/email-responses.js';
import type { SendResult } from './email-sender-service.js';

/** `data` of a 201 from POST /api/emails and POST /api/emails/:id/reply. */
export const sentEmailData = z
  .object({
    email: emailSchema.nullable().meta({ description: "The sent email as the CRM lists it (in the contact's thread); null when filed under nobody" }),
    sent: z.object({
      messageId: z.string().meta({ description: 'Message-ID of the sent email, without angle brackets' }),
      emailAccountId: z.uuid(),
      recipients: z.number().int().min(1).meta({ description: 'To, Cc and Bcc addresses together' }),
    }),
  })
  .meta({ id: 'SentEmail' });

export function presentSent(result: SendResult): z.input<typeof sentEmailData> {
  return {
    email: result.email ? presentEmail(result.email) : null,
    sent: { messageId: result.messageId, emailAccountId: result.emailAccountId, recipients: result.recipients },
  };
}
