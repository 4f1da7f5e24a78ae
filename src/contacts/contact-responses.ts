import { z } from 'zod';
import { nullableTimestamp, timestamp, uuid } from '../shared/response-fields.js';

/** A contact of the caller; user_id is implied by the session and not repeated. */
export const contactSchema = z
  .object({
    id: uuid,
    emailAccountId: uuid.meta({ description: 'The email account the contact belongs to' }),
    email: z.string(),
    name: z.string().nullable(),
    notes: z.string().nullable(),
    phone: z.string().nullable(),
    title: z.string().nullable().meta({ description: 'Job title' }),
    tags: z.array(z.string()).meta({ description: 'Tags (set by an import; empty when none)' }),
    lastEmailAt: nullableTimestamp,
    companyId: uuid.nullable().meta({ description: "The company of the address's domain (GET /api/companies/{id}); null for free-mail domains and the staff's own domains" }),
    company: z
      .object({ id: uuid, name: z.string().meta({ description: 'The name staff gave it, else the domain' }) })
      .nullable()
      .meta({ description: 'The same company as companyId with its shown name; null when companyId is null' }),
    unreadCount: z.number().int().min(0),
    emailCount: z.number().int().min(0).optional().meta({ description: 'Only on a single contact (GET/PATCH/POST), not in lists' }),
    addedAt: timestamp,
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Contact' });

/** data of GET/POST/PATCH of one contact. */
export const contactData = z.object({ contact: contactSchema });

/** data of DELETE /api/contacts/{id}. */
export const deletedContactData = z.object({
  id: uuid,
  deletedEmails: z.number().int().min(0).meta({ description: 'Emails removed with the contact' }),
});

const rowProblem = z.object({
  row: z.number().int().min(1).meta({ description: 'CSV: the row a spreadsheet shows (the header is row 1); vCard: the position of the card in the file (the first is 1)' }),
  reason: z.string().meta({ description: 'Slovak, for the user' }),
});

/** data of POST /api/contacts/import. */
export const importResultData = z.object({
  import: z.object({
    dryRun: z.boolean(),
    format: z.enum(['csv', 'vcf']),
    created: z.number().int().min(0),
    updated: z.number().int().min(0).meta({ description: 'Contacts of the mailbox the file changed (only values it has and that differ; tags are added)' }),
    unchanged: z.number().int().min(0),
    invalid: z.array(rowProblem).meta({ description: 'Rows left out, with the first problem of each' }),
    warnings: z.array(rowProblem).meta({ description: 'Rows imported with a company name that was not applied' }),
  }),
});

export type ImportResultData = z.input<typeof importResultData>;
export type ContactResponse = z.input<typeof contactSchema>;
export type ContactData = z.input<typeof contactData>;
export type DeletedContactData = z.input<typeof deletedContactData>;
