import { z } from 'zod';
import { hasUnsafeNameCharacters, unsafeNameMessage } from '../shared/text-safety.js';
import { paginationQuery, togetherOrNeither } from '../shared/validation.js';

const name = z
  .string()
  .trim()
  .max(100, 'Najviac 100 znakov')
  .refine((v) => !hasUnsafeNameCharacters(v), unsafeNameMessage('Meno'))
  .optional()
  .nullable();
export const personNameSchema = name;

/** Letters, digits and . _ - @ : safe in logs, URLs and shell commands. */
export const usernameSchema = z
  .string({ error: 'Používateľské meno je povinné' })
  .trim()
  .min(3, 'Používateľské meno musí mať aspoň 3 znaky')
  .max(64, 'Používateľské meno môže mať najviac 64 znakov')
  .regex(/^[A-Za-z0-9._@-]+$/, 'Používateľské meno môže obsahovať len písmená bez diakritiky, číslice a . _ - @');

export const roleSchema = z.enum(['admin', 'member'], { error: 'Rola musí byť admin alebo member' });

/** Request bodies are strict objects: an unknown field is a 400 (docs/adr/0026-strict-http-input-and-onboarding-gate.md). */
export const newUserSchema = z.strictObject({
  username: usernameSchema,
  role: roleSchema.default('member'),
  firstName: name,
  lastName: name,
});

export const mailAddressSchema = z.email('Neplatná emailová adresa').max(254, 'Emailová adresa je príliš dlhá');
export const mailPasswordSchema = z.string({ error: 'Heslo k emailu je povinné' }).min(1, 'Heslo k emailu je povinné').max(1024, 'Heslo k emailu je príliš dlhé');
export const mailCredentialsSchema = z.strictObject({ email: mailAddressSchema, emailPassword: mailPasswordSchema });

/** Mail credentials given at creation: both or neither, so a half-filled form is an error, not a silent skip. */
export const newUserWithMailSchema = togetherOrNeither(
  newUserSchema.extend({ email: mailAddressSchema.optional(), emailPassword: mailPasswordSchema.optional() }),
  ['email', 'emailPassword'],
  'Email a heslo k emailu sa zadávajú spolu',
);

/** GET /api/users/directory: a page of active colleagues, optionally those whose names contain `search`. */
export const directoryQuery = paginationQuery.extend({
  search: z.string().trim().min(1, 'Hľadaný text je prázdny').max(100, 'Hľadaný text je príliš dlhý').optional(),
});
