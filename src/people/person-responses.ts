import { z } from 'zod';
import { nullableTimestamp, uuid } from '../shared/response-fields.js';

/** A person as the caller sees them (person-visibility.ts): their addresses and mailboxes only; the shared fields only through mail. */
export const personSchema = z
  .object({
    id: uuid,
    name: z
      .string()
      .nullable()
      .meta({ description: 'The name staff gave (shown through mail you may read), else the name of your newest contact of them; null when none has one' }),
    emails: z.array(z.string()).min(1).meta({ description: 'The addresses you see (those with a contact in a mailbox whose mail you may read), the newest mail first' }),
    company: z
      .object({ id: uuid, name: z.string().meta({ description: 'The name staff gave it, else the domain' }) })
      .nullable()
      .meta({ description: 'Their company (GET /api/companies/{id}); null when none, or not shown to you' }),
    phone: z.string().nullable(),
    title: z.string().nullable().meta({ description: 'Job title' }),
    tags: z.array(z.string()),
    notes: z.string().nullable(),
    lastEmailAt: nullableTimestamp.meta({
      description: 'Their newest email over the contacts you see; null when you have no mail with them (the shared fields are then not shown: null and [])',
    }),
    emailAccountIds: z.array(uuid).min(1).meta({ description: 'The mailboxes you may read that hold a contact of them' }),
    colleague: z.boolean().meta({ description: "One of their addresses is one of the installation's email accounts (listed only with includeColleagues=true)" }),
  })
  .meta({ id: 'Person' });

/** data of GET/PATCH of one person and of a merge. */
export const personData = z.object({ person: personSchema });

export type PersonResponse = z.input<typeof personSchema>;
export type PersonData = z.input<typeof personData>;
