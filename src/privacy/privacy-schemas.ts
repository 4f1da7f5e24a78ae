import { z } from 'zod';
import { normalizeAddress } from '../sync/address-rules.js';

/**
 * Any address the sync could have stored (address-rules.ts), not only what a strict e-mail grammar
 * accepts: a person with an unusual address must be exportable and erasable too.
 */
const address = z
  .string({ error: 'Emailová adresa je povinná' })
  .trim()
  .min(3, 'Neplatná emailová adresa')
  .max(320, 'Emailová adresa je príliš dlhá')
  .refine((v) => normalizeAddress(v) !== null, 'Neplatná emailová adresa')
  .meta({ description: 'The address of the person (case does not matter)', example: 'jana.novakova@example.com' });

/** Body of POST /api/admin/privacy/export and /erase. */
export const privacyRequestBody = z.strictObject({ email: address });
