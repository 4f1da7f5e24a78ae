import { z } from 'zod';
import { changeBody, mailAddressField, paginationQuery } from '../shared/validation.js';

const MAX_NAME = 200;
const MAX_NOTES = 10_000;

/** Empty or blank text clears the field: the frontend sends what the input holds. */
const clearableText = (max: number, label: string) =>
  z
    .string({ error: `${label} musí byť text` })
    .trim()
    .max(max, `${label} môže mať najviac ${max} znakov`)
    .transform((v) => (v === '' ? null : v))
    .nullable();

export const contactEmailSchema = mailAddressField(
  { required: 'Email je povinný', tooLong: 'Email môže mať najviac 254 znakov', invalid: 'Neplatná emailová adresa' },
  { lowerCase: true },
);

export const searchText = z.string({ error: 'Hľadaný text musí byť text' }).trim().min(1, 'Hľadaný text je prázdny').max(200, 'Hľadaný text je príliš dlhý');

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
  name: clearableText(MAX_NAME, 'Meno').optional(),
  notes: clearableText(MAX_NOTES, 'Poznámka').optional(),
});

export const updateContactBody = changeBody(
  z.strictObject({
    name: clearableText(MAX_NAME, 'Meno').optional(),
    notes: clearableText(MAX_NOTES, 'Poznámka').optional(),
  }),
  'Zadajte aspoň jednu zmenu (name, notes)',
);
