import { z } from 'zod';
import { changeBody, clearableName, clearableText, looseBoolean, mailAddressField, paginationQuery, searchText } from '../shared/validation.js';

const MAX_NAME = 200;
const MAX_NOTES = 10_000;

export const contactEmailSchema = mailAddressField(
  { required: 'Email je povinný', tooLong: 'Email môže mať najviac 254 znakov', invalid: 'Neplatná emailová adresa' },
  { lowerCase: true },
);

export const listContactsQuery = paginationQuery.extend({
  emailAccountId: z.uuid('Neplatný identifikátor emailového účtu').optional(),
  companyId: z
    .uuid('Neplatný identifikátor firmy')
    .optional()
    .meta({ description: 'Only the contacts of this company; a company the caller does not see (unknown, or none of its contacts visible to them): 404' }),
  search: searchText.optional(),
  sort: z
    .enum(['lastEmail', 'name', 'latest'], { error: 'sort musí byť lastEmail alebo name' })
    .default('lastEmail')
    .transform((v) => (v === 'latest' ? 'lastEmail' : v))
    .meta({ description: 'lastEmail (default): the most recent correspondence first; name: A to Z (the address where there is no name); latest: old name of lastEmail' }),
});

/** Unknown fields are an error, not silently dropped: a typo must not look like a saved change. */
export const createContactBody = z.strictObject({
  emailAccountId: z.uuid({ error: 'emailAccountId musí byť identifikátor emailového účtu' }),
  email: contactEmailSchema,
  name: clearableName(MAX_NAME, 'Meno').optional(),
  notes: clearableText(MAX_NOTES, 'Poznámka').optional(),
});

export const updateContactBody = changeBody(
  z.strictObject({
    name: clearableName(MAX_NAME, 'Meno').optional(),
    notes: clearableText(MAX_NOTES, 'Poznámka').optional(),
  }),
  'Zadajte aspoň jednu zmenu (name, notes)',
);

/** The text fields of POST /api/contacts/import (multipart; the file part is `file`). */
export const importFieldsSchema = z.strictObject({
  emailAccountId: z.uuid({ error: 'emailAccountId musí byť identifikátor emailového účtu' }).meta({ description: 'The mailbox to import into (owner or editor)' }),
  dryRun: looseBoolean('dryRun musí byť true alebo false').optional().default(false).meta({ description: 'true: answer the counts and the invalid rows, store nothing' }),
});

export const exportContactsQuery = z.strictObject({
  emailAccountId: z.uuid({ error: 'emailAccountId musí byť identifikátor emailového účtu' }),
  format: z.enum(['csv', 'vcf'], { error: 'format musí byť csv alebo vcf' }).default('csv'),
  delimiter: z
    .enum(['comma', 'semicolon'], { error: 'delimiter musí byť comma alebo semicolon' })
    .default('comma')
    .meta({ description: 'CSV only: comma (default) or semicolon (what Excel in a Slovak locale opens by a double click)' }),
});
