import { z } from 'zod';
import { timestamp, uuid } from '../shared/response-fields.js';

const addressHash = z.string().meta({ description: 'HMAC-SHA256 of the address (hex) under a key derived from CRM_ENCRYPTION_KEY: how the audit log names it' });

export const accountErasureSchema = z
  .object({
    emailAccountId: uuid,
    emailAccount: z.string().meta({ description: 'The staff email account' }),
    emails: z.number().int(),
    contacts: z.number().int(),
    contactSuppressions: z.number().int(),
    tasks: z.number().int().meta({ description: 'Tasks about the person: linked to them, or to the company of their own domain that went with them' }),
  })
  .meta({ id: 'AccountErasure' });

/** data of POST /api/admin/privacy/erase. */
export const erasureData = z.object({
  erasure: z
    .object({
      addressHash,
      erasedAt: timestamp.meta({ description: 'The sync stores no email of the address dated up to this time, ever again; later mail is stored' }),
      accounts: z.array(accountErasureSchema).meta({ description: 'Every email account that held something, with what was deleted there' }),
      emails: z.number().int(),
      contacts: z.number().int(),
      contactSuppressions: z.number().int(),
      tasks: z.number().int(),
      people: z
        .number()
        .int()
        .meta({ description: 'Person records of the address: removed with it, or (holding other addresses after a merge) emptied of every field staff kept' }),
      drafts: z.number().int().meta({ description: 'Drafts addressed to it (To, Cc or Bcc), in any account, deleted' }),
      scheduledEmails: z
        .number()
        .int()
        .meta({ description: 'Sends scheduled for later to it (To, Cc or Bcc) or answering or forwarding its mail, in any account, deleted (one being sent that moment goes)' }),
      companiesDeleted: z.number().int().meta({ description: "The company of the address's domain, deleted with its last contact (a personal domain): 0 or 1" }),
      companiesKept: z
        .array(z.object({ id: uuid, domain: z.string() }).meta({ id: 'ErasureCompany' }))
        .meta({ description: "The company of the address's domain, kept because other contacts are filed there: what staff wrote on it may name the person, review it" }),
      auditRecordsRedacted: z.number().int().meta({ description: 'Audit records that named the address (or the domain of its deleted company), now naming its hash' }),
    })
    .meta({ id: 'Erasure' }),
});
export type ErasureData = z.infer<typeof erasureData>;
