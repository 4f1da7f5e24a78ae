import { z } from 'zod';
import { ValidationError } from '../errors/app-errors.js';
import { unknownFieldMessage } from './zod-slovak.js';

/**
 * Framework-free validation shared by HTTP routes, crm-admin commands and the OpenAPI builders:
 * one ValidationError (the contract's kind) with one Slovak message and the field problems as details.
 * Importing this module installs the Slovak zod messages (zod-slovak.ts).
 */
export function parse<S extends z.ZodType>(schema: S, value: unknown, message = 'Neplatné údaje'): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(message, issueDetails(result.error.issues));
  return result.data;
}

export interface FieldProblem {
  field: string | null;
  message: string;
}

/** One detail per problem; an unknown field is named as the field itself, one detail per unknown key. */
export function issueDetails(issues: readonly z.core.$ZodIssue[]): FieldProblem[] {
  return issues.flatMap((issue) => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: [...path, key].join('.'), message: unknownFieldMessage(key) }));
    }
    return [{ field: path.join('.') || null, message: issue.message }];
  });
}

/**
 * A yes/no from JSON or from a form field (docs/contract.md §4.1, rememberMe): true/false, "true"/"false", 1/0.
 * Anything else is a 400 with the given message, never a silent false.
 */
export function looseBoolean(message: string) {
  return z.union([z.boolean(), z.enum(['true', 'false']), z.literal(1), z.literal(0)], { error: message }).transform((v) => v === true || v === 'true' || v === 1);
}

/** Route ids are UUIDs; anything else is a 400 before it reaches a query (never a 500 from PostgreSQL). */
export const idParams = z.object({ id: z.uuid('Neplatný identifikátor') });

/**
 * docs/contract.md §8: page from 1, limit default 50, at most 100; beyond that a 400, not a silent clamp.
 * Strict like every list query (docs/adr/0026-strict-http-input-and-onboarding-gate.md): a misspelt filter is a 400, never an unfiltered list.
 */
export const paginationQuery = z.strictObject({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
