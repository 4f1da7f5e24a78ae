import { z } from 'zod';
import { changeBody, clearableName, clearableText, paginationQuery, searchText } from '../shared/validation.js';

const MAX_NAME = 200;
const MAX_NOTES = 10_000;

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
  }),
  'Zadajte aspoň jednu zmenu (name, notes)',
);
