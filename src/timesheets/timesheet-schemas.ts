import { z } from 'zod';
import { paginationQuery } from '../shared/validation.js';
import { MAX_YEAR, MIN_YEAR, MONTH_MESSAGE, YEAR_MESSAGE } from './period.js';

/**
 * Whole numbers written as plain digits: multipart fields and query strings are text, and "1e3",
 * "2026.0" or "" must not slip through a numeric coercion. The pattern spells the range itself
 * (surrounding blanks and up to two leading zeros aside), so the OpenAPI document states the real
 * bounds, not "up to six digits"; the number check after it says the same in the service
 * (test/unit/validation.test.ts checks that both agree over every value).
 */
function wholeNumber(pattern: RegExp, min: number, max: number, message: string) {
  return z
    .string({ error: message })
    .regex(pattern, message)
    .transform((text) => Number(text.trim()))
    .pipe(z.number().int().min(min, message).max(max, message));
}

/** 2000 to 2100 (MIN_YEAR, MAX_YEAR). */
export const YEAR_PATTERN = /^\s*0{0,2}(20\d\d|2100)\s*$/;
/** 1 to 12. */
export const MONTH_PATTERN = /^\s*0{0,2}([1-9]|1[0-2])\s*$/;

export const yearField = wholeNumber(YEAR_PATTERN, MIN_YEAR, MAX_YEAR, YEAR_MESSAGE).meta({ description: `Year, ${MIN_YEAR} to ${MAX_YEAR}`, example: '2026' });
export const monthField = wholeNumber(MONTH_PATTERN, 1, 12, MONTH_MESSAGE).meta({ description: 'Month, 1 to 12', example: '3' });

/** The text fields of the upload form (the file itself is the `file` part). */
export const uploadFieldsSchema = z.strictObject({
  year: yearField,
  month: monthField,
});

export const ownListQuery = paginationQuery.extend({
  year: yearField.optional(),
  month: monthField.optional(),
});

export const allListQuery = ownListQuery.extend({
  userId: z.uuid('Neplatný identifikátor používateľa').optional(),
});

/** GET /api/admin/timesheets/report and /export: one month, both required. */
export const monthQuery = z.strictObject({ year: yearField, month: monthField });
