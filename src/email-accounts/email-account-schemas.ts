import { z } from 'zod';
import { paginationQuery } from '../shared/validation.js';

const MAX_SECRET_LENGTH = 1024;

const emailField = z
  .string({ error: 'Email je povinný' })
  .trim()
  .max(254, 'Email môže mať najviac 254 znakov')
  .pipe(z.email({ error: 'Neplatná emailová adresa' }));

const passwordField = z
  .string({ error: 'Heslo k emailu je povinné' })
  .min(1, 'Heslo k emailu je povinné')
  .max(MAX_SECRET_LENGTH, 'Heslo k emailu je príliš dlhé');

export const createEmailAccountBody = z.strictObject({ email: emailField, emailPassword: passwordField });

export const updateEmailAccountBody = z
  .strictObject({
    email: emailField.optional(),
    emailPassword: passwordField.optional(),
    isActive: z.boolean({ error: 'isActive musí byť true alebo false' }).optional(),
    // Exactly one primary per user: an account becomes primary, it is never "un-primaried" directly.
    isPrimary: z.literal(true, { error: 'isPrimary môže byť iba true (iný účet sa tým stane vedľajším)' }).optional(),
  })
  .refine((v) => Object.values(v).some((value) => value !== undefined), {
    message: 'Zadajte aspoň jednu zmenu (email, emailPassword, isActive, isPrimary)',
  });

export const listEmailAccountsQuery = paginationQuery;

export type CreateEmailAccountBody = z.infer<typeof createEmailAccountBody>;
export type UpdateEmailAccountBody = z.infer<typeof updateEmailAccountBody>;
