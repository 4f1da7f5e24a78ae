import { z } from 'zod';
import { changeBody, paginationQuery } from '../shared/validation.js';
import { newUserWithMailSchema, personNameSchema, roleSchema } from '../users/user-schemas.js';

export const createUserBody = newUserWithMailSchema;

export const listUsersQuery = paginationQuery.extend({
  role: roleSchema.optional(),
  search: z.string().trim().min(1, 'Hľadaný text je prázdny').max(100, 'Hľadaný text je príliš dlhý').optional(),
});

export const updateUserBody = changeBody(
  z.strictObject({ role: roleSchema.optional(), firstName: personNameSchema, lastName: personNameSchema }),
  'Zadajte aspoň jednu zmenu (role, firstName, lastName)',
);

/**
 * DELETE /api/admin/users/:id: what happens to the email accounts the user owns and shares with
 * others (docs/adr/0028-email-account-sharing.md: never decided silently) — a new owner, or their deletion with all their data.
 */
export const deleteUserQuery = z
  .object({
    newOwnerId: z.uuid('newOwnerId musí byť identifikátor používateľa').optional(),
    deleteSharedAccounts: z
      .enum(['true', 'false'], { error: 'Očakáva sa true alebo false' })
      .transform((v) => v === 'true')
      .optional(),
  })
  .refine((q) => !(q.newOwnerId && q.deleteSharedAccounts), { message: 'Zvoľte buď newOwnerId, alebo deleteSharedAccounts', path: ['deleteSharedAccounts'] });

/**
 * A date (2024-05-01, midnight UTC) or a full ISO 8601 timestamp with its zone; nothing Date() merely tolerates.
 * Years before 1 (0000-01-01, or 0001-01-01T00:00+01:00) are refused: the calendar has no year 0 and the
 * database query would fail on them.
 */
export const isoInstant = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()], { error: 'Očakáva sa dátum alebo čas v ISO 8601 (napr. 2024-05-01 alebo 2024-05-01T08:00:00Z)' })
  .transform((s) => new Date(s))
  .refine((d) => !Number.isNaN(d.getTime()) && d.getUTCFullYear() >= 1, 'Neplatný dátum');

export const booleanText = z.enum(['true', 'false'], { error: 'Očakáva sa true alebo false' }).transform((v) => v === 'true');

const sinceBeforeUntil = (q: { since?: Date; until?: Date }) => !q.since || !q.until || q.since < q.until;
const auditFilterShape = {
  userId: z.uuid('Neplatný identifikátor používateľa').optional(),
  username: z.string().trim().min(1).max(64, 'Používateľské meno je príliš dlhé').optional(),
  action: z.string().trim().min(1).max(100, 'Akcia je príliš dlhá').optional(),
  since: isoInstant.optional(),
  until: isoInstant.optional(),
  success: booleanText.optional(),
};

/** The filters alone: crm-admin pages with its own, larger limit. */
export const auditLogFilters = z.strictObject(auditFilterShape).refine(sinceBeforeUntil, { message: 'since musí byť pred until', path: ['until'] });

export const auditLogQuery = paginationQuery.extend(auditFilterShape).refine(sinceBeforeUntil, { message: 'since musí byť pred until', path: ['until'] });
