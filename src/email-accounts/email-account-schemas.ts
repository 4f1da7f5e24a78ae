import { z } from 'zod';
import { changeBody, mailAddressField, paginationQuery } from '../shared/validation.js';

const MAX_SECRET_LENGTH = 1024;

const emailField = mailAddressField({ required: 'Email je povinný', tooLong: 'Email môže mať najviac 254 znakov', invalid: 'Neplatná emailová adresa' });

const passwordField = z.string({ error: 'Heslo k emailu je povinné' }).min(1, 'Heslo k emailu je povinné').max(MAX_SECRET_LENGTH, 'Heslo k emailu je príliš dlhé');

export const createEmailAccountBody = z.strictObject({ email: emailField, emailPassword: passwordField });

export const updateEmailAccountBody = changeBody(
  z.strictObject({
    email: emailField
      .optional()
      .meta({ description: 'Another address needs emailPassword too (the new mailbox\'s password): 400 otherwise. The same address again does not' }),
    emailPassword: passwordField.optional(),
    isActive: z.boolean({ error: 'isActive musí byť true alebo false' }).optional(),
    // Exactly one primary per user: an account becomes primary, it is never "un-primaried" directly.
    isPrimary: z.literal(true, { error: 'isPrimary môže byť iba true (iný účet sa tým stane vedľajším)' }).optional(),
  }),
  'Zadajte aspoň jednu zmenu (email, emailPassword, isActive, isPrimary)',
);

export const listEmailAccountsQuery = paginationQuery;

// --- Sharing (docs/contract.md §4.3): request and response schemas.

/** Unknown fields are an error, not silently dropped: a typo must not look like a granted right. */
const unknownKeys = (message: string) => ({
  error: (issue: { code?: string }) => (issue.code === 'unrecognized_keys' ? message : undefined),
});
const flag = (name: string) => z.boolean({ error: `${name} musí byť true alebo false` });
const VIEWER_SENDS = 'Divák (viewer) nemôže odosielať; zvoľte rolu editor';

export const accountIdParams = z.object({ accountId: z.uuid('Neplatný identifikátor emailového účtu') });
export const memberParams = accountIdParams.extend({ userId: z.uuid('Neplatný identifikátor používateľa') });
export const listMembersQuery = paginationQuery;

export const shareBody = z
  .strictObject(
    {
      userId: z.uuid({ error: 'userId musí byť identifikátor používateľa' }),
      // The owner is whoever linked the account; ownership is handed over by changing a share to owner.
      role: z.enum(['editor', 'viewer'], { error: 'role musí byť editor alebo viewer' }),
      canRead: flag('canRead').default(true),
      canSend: flag('canSend').default(false),
    },
    unknownKeys('Nepovolené pole (povolené sú userId, role, canRead, canSend)'),
  )
  .refine((v) => !(v.role === 'viewer' && v.canSend), { message: VIEWER_SENDS, path: ['canSend'] });

export const changeShareBody = changeBody(
  z.strictObject(
    {
      role: z.enum(['owner', 'editor', 'viewer'], { error: 'role musí byť owner, editor alebo viewer' }).optional(),
      canRead: flag('canRead').optional(),
      canSend: flag('canSend').optional(),
    },
    unknownKeys('Nepovolené pole (meniť sa dá role, canRead, canSend)'),
  ),
  'Zadajte aspoň jednu zmenu (role, canRead, canSend)',
);

const instant = z.date().meta({ type: 'string', format: 'date-time' });

/** One member of an email account (GET .../users items, data.member); the presenter's return type is checked against it. */
export const memberView = z
  .object({
    emailAccountId: z.uuid(),
    userId: z.uuid(),
    username: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    role: z.enum(['owner', 'editor', 'viewer']),
    canRead: z.boolean(),
    canSend: z.boolean(),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'EmailAccountMember', description: "A user's access to a shared email account" });

export const memberData = z.object({ member: memberView });

export type MemberView = z.infer<typeof memberView>;
