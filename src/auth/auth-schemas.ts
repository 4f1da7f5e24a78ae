import { z } from 'zod';
import { looseBoolean, mailAddressField } from '../shared/validation.js';

/**
 * Request bodies of docs/contract.md §4.1, strict like every request body (an unknown field is a 400). Upper bounds here only keep absurd input out (a megabyte
 * "password"); the password policy itself (10-128 characters...) lives in password-policy.ts.
 */
const MAX_SECRET_LENGTH = 1024;

/**
 * docs/contract.md §4.1: `rememberMe` is true/false, "true"/"false" or 1/0 (a form post sends text); anything else
 * is a 400, never a silent false.
 */
const REMEMBER_ME_MESSAGE = 'rememberMe musí byť true alebo false (aj "true"/"false" alebo 1/0)';
export const rememberMeSchema = looseBoolean(REMEMBER_ME_MESSAGE);

export const loginSchema = z.strictObject({
  // Not the strict username format of user creation: a malformed name is just a failed login (401).
  username: z.string({ error: 'Používateľské meno je povinné' }).trim().min(1, 'Používateľské meno je povinné').max(128, 'Používateľské meno je príliš dlhé'),
  password: z.string({ error: 'Heslo je povinné' }).min(1, 'Heslo je povinné').max(MAX_SECRET_LENGTH, 'Heslo je príliš dlhé'),
  rememberMe: rememberMeSchema.optional().default(false),
});

export const setPasswordSchema = z.strictObject({
  newPassword: z.string({ error: 'Nové heslo je povinné' }).max(MAX_SECRET_LENGTH, 'Heslo môže mať najviac 128 znakov'),
  // Required only once the user has a password of their own; the service decides.
  currentPassword: z.string({ error: 'Aktuálne heslo musí byť text' }).max(MAX_SECRET_LENGTH, 'Aktuálne heslo je príliš dlhé').optional(),
});

export const linkEmailSchema = z.strictObject({
  email: mailAddressField({ required: 'Email je povinný', tooLong: 'Email môže mať najviac 254 znakov', invalid: 'Neplatná emailová adresa' }),
  emailPassword: z.string({ error: 'Heslo k emailu je povinné' }).min(1, 'Heslo k emailu je povinné').max(MAX_SECRET_LENGTH, 'Heslo k emailu je príliš dlhé'),
});
