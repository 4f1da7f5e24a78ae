import { z } from 'zod';

const name = z.string().trim().max(100, 'Najviac 100 znakov').optional().nullable();

/** Letters, digits and . _ - @ : safe in logs, URLs and shell commands. */
export const usernameSchema = z
  .string({ error: 'Používateľské meno je povinné' })
  .trim()
  .min(3, 'Používateľské meno musí mať aspoň 3 znaky')
  .max(64, 'Používateľské meno môže mať najviac 64 znakov')
  .regex(/^[A-Za-z0-9._@-]+$/, 'Používateľské meno môže obsahovať len písmená bez diakritiky, číslice a . _ - @');

export const roleSchema = z.enum(['admin', 'member'], { error: 'Rola musí byť admin alebo member' });

export const newUserSchema = z.object({
  username: usernameSchema,
  role: roleSchema.default('member'),
  firstName: name,
  lastName: name,
});
