import { z } from 'zod';
import { ValidationError } from '../errors/app-errors.js';
import { hasUnsafeNameCharacters, unsafeNameMessage } from './text-safety.js';
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

/** A list's free-text filter (contacts, companies, emails): trimmed, 1-200 characters. */
export const searchText = z.string({ error: 'Hľadaný text musí byť text' }).trim().min(1, 'Hľadaný text je prázdny').max(200, 'Hľadaný text je príliš dlhý');

/**
 * A text field of a PATCH that the frontend sends as its input holds it: empty or blank clears the
 * field (null), so the value stored is never "".
 */
export function clearableText(max: number, label: string) {
  return z
    .string({ error: `${label} musí byť text` })
    .trim()
    .max(max, `${label} môže mať najviac ${max} znakov`)
    .transform((v) => (v === '' ? null : v))
    .nullable();
}

/** A name others see (a contact's, a company's): clearableText without control or bidi characters (src/shared/text-safety.ts). */
export function clearableName(max: number, label: string) {
  return z
    .string({ error: `${label} musí byť text` })
    .trim()
    .max(max, `${label} môže mať najviac ${max} znakov`)
    .refine((v) => !hasUnsafeNameCharacters(v), unsafeNameMessage(label))
    .transform((v) => (v === '' ? null : v))
    .nullable();
}

/**
 * A PATCH body: at least one field, or a 400 with `message`. The refusal and the document's
 * `minProperties: 1` come from this one place, so the service and the OpenAPI document cannot
 * disagree about `{}` (issue 34).
 */
export function changeBody<T extends z.ZodObject>(schema: T, message: string) {
  return schema.refine((v) => Object.values(v).some((value) => value !== undefined), { message }).meta({ minProperties: 1 });
}

/**
 * Fields given together or not at all (e.g. a mail address and its password): the refusal (on the
 * second field, with `message`) and the document's `dependentRequired` both ways, from one place.
 */
export function togetherOrNeither<T extends z.ZodObject>(schema: T, [a, b]: readonly [string, string], message: string) {
  return schema.refine((v: Record<string, unknown>) => (v[a] === undefined) === (v[b] === undefined), { message, path: [b] }).meta({ dependentRequired: { [a]: [b], [b]: [a] } });
}

/**
 * At least one of these fields (e.g. emailAccountId or contactId): the refusal and the document's
 * `anyOf` of `required`, from one place.
 */
export function oneOfRequired<T extends z.ZodObject>(schema: T, fields: readonly string[], message: string) {
  return schema
    .refine((v: Record<string, unknown>) => fields.some((f) => v[f] !== undefined), { message, path: [fields[0]] })
    .meta({ anyOf: fields.map((f) => ({ required: [f] })) });
}

/**
 * A mail address in a request: trimmed text of at most 254 characters that z.email accepts, documented
 * as `format: email` (the document shows a pipe's input side, a plain string, otherwise).
 */
export function mailAddressField(messages: { required: string; tooLong: string; invalid: string }, options: { lowerCase?: boolean } = {}) {
  const text = z.string({ error: messages.required }).trim();
  return (options.lowerCase ? text.toLowerCase() : text)
    .max(254, messages.tooLong)
    .pipe(z.email({ error: messages.invalid }))
    .meta({ format: 'email' });
}
