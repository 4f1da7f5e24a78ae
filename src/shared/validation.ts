import { z } from 'zod';
import { ValidationError } from '../errors/app-errors.js';

/**
 * Framework-free validation shared by HTTP routes, crm-admin commands and the OpenAPI builders:
 * one ValidationError (the spec's kind) with one Slovak message and the field problems as details.
 */
export function parse<S extends z.ZodType>(schema: S, value: unknown, message = 'Neplatné údaje'): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new ValidationError(
      message,
      result.error.issues.map((i) => ({ field: i.path.join('.') || null, message: i.message })),
    );
  }
  return result.data;
}

/** Route ids are UUIDs; anything else is a 400 before it reaches a query (never a 500 from PostgreSQL). */
export const idParams = z.object({ id: z.uuid('Neplatný identifikátor') });

/** design.md "Lists": page from 1, limit default 50, at most 100; beyond that a 400, not a silent clamp. */
export const paginationQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
