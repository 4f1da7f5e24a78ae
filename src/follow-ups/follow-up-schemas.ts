import { z } from 'zod';
import { paginationQuery } from '../shared/validation.js';
import { FOLLOW_UP_STATUSES } from './follow-up-query.js';

/** Bound of the note, also a CHECK of migrations/0029-follow-ups.ts. */
export const MAX_FOLLOW_UP_NOTE = 2000;

const DUE_MESSAGE = 'dueAt musí byť dátum a čas v ISO 8601 s časovou zónou (napr. 2026-05-04T09:00:00+02:00)';
/** Far enough for any reminder, near enough that a typo (year 20266) is refused rather than stored. */
const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(2100, 0, 1);

/**
 * PUT /api/contacts/{id}/follow-up: when to be reminded and why. A time in the past is allowed (it is
 * due at once). Strict like every body: an unknown field is a 400.
 */
export const putFollowUpBody = z.strictObject({
  dueAt: z.iso
    .datetime({ offset: true, error: DUE_MESSAGE })
    .transform((text) => new Date(text))
    .refine((d) => d.getTime() >= EARLIEST && d.getTime() < LATEST, 'dueAt musí byť medzi rokmi 2000 a 2099')
    .meta({ description: 'When the reminder comes due: ISO 8601 date and time with an offset (Z or +02:00)' }),
  note: z
    .string({ error: 'Poznámka musí byť text' })
    .trim()
    .max(MAX_FOLLOW_UP_NOTE, `Poznámka môže mať najviac ${MAX_FOLLOW_UP_NOTE} znakov`)
    .transform((v) => (v === '' ? null : v))
    .nullable()
    .optional()
    .meta({ description: 'Why (at most 2000 characters); absent, null or blank: no note' }),
});

export const listFollowUpsQuery = paginationQuery.extend({
  status: z
    .enum(FOLLOW_UP_STATUSES, { error: 'status musí byť due, upcoming alebo all' })
    .default('all')
    .meta({ description: 'due: dueAt is now or past (oldest first); upcoming: dueAt in the future (soonest first); all (default): both, by dueAt' }),
  contactId: z.uuid('Neplatný identifikátor kontaktu').optional().meta({ description: 'Only your follow-up of this contact (at most one); a contact you may not see: 404' }),
});
