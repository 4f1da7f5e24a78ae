import { z } from 'zod';
import { paginationQuery } from '../shared/validation.js';
import { MAX_YEAR, MIN_YEAR, MONTH_MESSAGE, YEAR_MESSAGE } from './period.js';

/**
 * Whole numbers written as plain digits: multipart fields and query strings are text, and "1e3",
 * "2026.0" or "" must not slip through a numeric coercion.
 */
function wholeNumber(min: number, max: number, message: string) {
  return z
    .string({ error: message })
    .trim()
    .regex(/^\d{1,6}$/, message)
    .transform(Number)
    .pipe(z.number().int().min(min, message).max(max, message));
}

export const yearField = wholeNumber(MIN_YEAR, MAX_YEAR, YEAR_MESSAGE);
export const monthField = wholeNumber(1, 12, MONTH_MESSAGE);

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
