import { z } from 'zod';
import { phoneField } from '../shared/party-fields.js';
import { hasUnsafeNameCharacters, unsafeNameMessage } from '../shared/text-safety.js';
import { changeBody, clearableName, clearableText, paginationQuery, searchText } from '../shared/validation.js';

const MAX_NAME = 200;
const MAX_TITLE = 200;
const MAX_NOTES = 10_000;
/** As a contact's tags (src/contacts/import-rows.ts). */
const MAX_TAGS = 20;
const MAX_TAG = 50;
/** A merge names at most this many sources: a person with more addresses than that is merged in steps. */
export const MAX_MERGE_SOURCES = 50;

const tagText = z
  .string({ error: 'Štítok musí byť text' })
  .trim()
  .min(1, 'Štítok je prázdny')
  .max(MAX_TAG, `Štítok môže mať najviac ${MAX_TAG} znakov`)
  .refine((v) => !hasUnsafeNameCharacters(v), unsafeNameMessage('Štítok'))
  .refine((v) => !/[,;]/.test(v), 'Štítok nesmie obsahovať čiarku ani bodkočiarku');

export const listPeopleQuery = paginationQuery.extend({
  search: searchText
    .optional()
    .meta({ description: 'Words that must each occur in the name, an address or the company as you see them, in any order; accents and letter case aside ("sebo" finds "Šebo")' }),
  companyId: z.uuid('Neplatný identifikátor firmy').optional().meta({ description: 'Only the people of this company; a company you do not see: 404' }),
  tag: tagText
    .optional()
    .meta({ description: 'Only the people with this tag, accents and letter case aside (tags are shown through mail only: a person met only by a typed address never matches)' }),
  includeColleagues: z
    .enum(['true', 'false'], { error: 'includeColleagues musí byť true alebo false' })
    .default('false')
    .transform((v) => v === 'true')
    .meta({ description: "true: also the installation's own staff (the addresses of its email accounts); default false" }),
});

/** Unknown fields are an error, not silently dropped: a typo must not look like a saved change. */
export const updatePersonBody = changeBody(
  z.strictObject({
    name: clearableName(MAX_NAME, 'Meno').optional().meta({ description: 'Empty or null: the name of your contact of the person shows again' }),
    phone: phoneField.optional().meta({ description: 'Digits, spaces and + ( ) - / . only, at least 3 digits, at most 50 characters; empty or null clears it' }),
    title: clearableName(MAX_TITLE, 'Funkcia').optional().meta({ description: 'Job title' }),
    tags: z
      .array(tagText, { error: 'tags musí byť zoznam štítkov' })
      .max(MAX_TAGS, `Najviac ${MAX_TAGS} štítkov`)
      .transform(uniqueTags)
      .optional()
      .meta({ description: `The whole list (replaces it): at most ${MAX_TAGS} tags of at most ${MAX_TAG} characters; a repeated tag (letter case aside) is kept once` }),
    notes: clearableText(MAX_NOTES, 'Poznámka').optional(),
    companyId: z.uuid('Neplatný identifikátor firmy').nullable().optional().meta({ description: 'A company you see (else 404); null: none' }),
  }),
  'Zadajte aspoň jednu zmenu (name, phone, title, tags, notes, companyId)',
);

export const mergePeopleBody = z.strictObject({
  sourceIds: z
    .array(z.uuid('sourceIds obsahuje neplatný identifikátor osoby'), { error: 'sourceIds musí byť zoznam identifikátorov osôb' })
    .min(1, 'Uveďte aspoň jednu osobu na zlúčenie')
    .max(MAX_MERGE_SOURCES, `Naraz najviac ${MAX_MERGE_SOURCES} osôb`)
    .refine((ids) => new Set(ids).size === ids.length, 'sourceIds obsahuje tú istú osobu viackrát')
    .meta({ description: `The people merged into this one (1-${MAX_MERGE_SOURCES}, distinct, not this one); each answers 404 afterwards` }),
});

/** Each tag once, letter case aside (the first spelling wins). */
function uniqueTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  return tags.filter((tag) => {
    const key = tag.toLocaleLowerCase('sk');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
