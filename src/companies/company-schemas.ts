import { z } from 'zod';
import { phoneField, registrationNumberField, vatIdField, websiteField } from '../shared/party-fields.js';
import { changeBody, clearableName, clearableText, paginationQuery, searchText } from '../shared/validation.js';

const MAX_NAME = 200;
const MAX_NOTES = 10_000;
const MAX_ADDRESS = 500;

export const listCompaniesQuery = paginationQuery.extend({
  search: searchText
    .optional()
    .meta({ description: 'Words that must each occur in the name or the domain, in any order; accents and letter case aside ("kovac" finds "Kováč s.r.o.")' }),
  sort: z
    .enum(['lastEmail', 'name', 'contactCount'], { error: 'sort musí byť lastEmail, name alebo contactCount' })
    .default('lastEmail')
    .meta({ description: 'lastEmail (default): the most recent correspondence first; name: A to Z by the shown name; contactCount: the most contacts first' }),
});

/** Unknown fields are an error (a cleared name shows the domain again), not silently dropped: a typo must not look like a saved change. */
export const updateCompanyBody = changeBody(
  z.strictObject({
    name: clearableName(MAX_NAME, 'Názov').optional(),
    notes: clearableText(MAX_NOTES, 'Poznámka').optional(),
    registrationNumber: registrationNumberField
      .optional()
      .meta({ description: 'IČO: 8 digits with a valid mod-11 check digit (Slovak and Czech registers); spaces are dropped; empty or null clears it' }),
    vatId: vatIdField.optional().meta({
      description:
        'IČ DPH: an EU country prefix and the number (SK + 10 digits, CZ + 8-10 digits, others 2-12 digits or capitals); spaces dropped, upper-cased; empty or null clears it',
    }),
    address: clearableText(MAX_ADDRESS, 'Adresa').optional(),
    phone: phoneField.optional().meta({ description: 'Digits, spaces and + ( ) - / . only, at least 3 digits, at most 50 characters' }),
    website: websiteField.optional().meta({ description: 'An http:// or https:// address, at most 500 characters' }),
  }),
  'Zadajte aspoň jednu zmenu (name, notes, registrationNumber, vatId, address, phone, website)',
);
