import { z } from 'zod';
import { nullableTimestamp, timestamp, uuid } from '../shared/response-fields.js';

/** A company as the caller sees it: its figures count only the contacts they may see. */
export const companySchema = z
  .object({
    id: uuid,
    domain: z.string().meta({ description: 'The mail domain the company stands for (lower case)' }),
    name: z.string().meta({ description: 'The name staff gave it, else the domain' }),
    notes: z.string().nullable(),
    registrationNumber: z.string().nullable().meta({ description: 'IČO (8 digits)' }),
    vatId: z.string().nullable().meta({ description: 'IČ DPH (an EU country prefix and the number, e.g. SK2020123456)' }),
    address: z.string().nullable(),
    phone: z.string().nullable(),
    website: z.string().nullable().meta({ description: 'An http(s) address' }),
    contactCount: z.number().int().min(1).meta({ description: "The caller's contacts at this domain (over the email accounts they may see)" }),
    lastEmailAt: nullableTimestamp.meta({ description: 'The newest email of those contacts; null when they have none' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Company' });

/** data of GET/PATCH of one company. */
export const companyData = z.object({ company: companySchema });

export type CompanyResponse = z.input<typeof companySchema>;
export type CompanyData = z.input<typeof companyData>;
