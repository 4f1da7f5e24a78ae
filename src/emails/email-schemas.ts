import { z } from 'zod';
import { paginationQuery, searchText } from '../shared/validation.js';

const DATE_MESSAGE = 'Očakáva sa dátum alebo čas v ISO 8601 (napr. 2024-05-01 alebo 2024-05-01T08:00:00Z)';
const DAY_MS = 86_400_000;

/**
 * A range bound: a full ISO 8601 instant, or a day (UTC). `to` is inclusive for the user: a day
 * means "until the end of that day", so both come out as an exclusive upper bound for the query.
 */
const dateBound = (edge: 'from' | 'to') =>
  z
    .union([z.iso.datetime({ offset: true }), z.iso.date()], { error: DATE_MESSAGE })
    .transform((text) => {
      const at = new Date(text);
      if (edge === 'from') return at;
      return new Date(at.getTime() + (text.length === 10 ? DAY_MS : 1));
    })
    .refine((d) => !Number.isNaN(d.getTime()), DATE_MESSAGE);

/** A batch read answers at most this many ids (a live event names at most 50). */
export const MAX_IDS = 100;

/** A query flag: exactly true or false (the conversation list takes it too). */
export const booleanText = z.enum(['true', 'false'], { error: 'Očakáva sa true alebo false' }).transform((v) => v === 'true');

export const listEmailsQuery = paginationQuery
  .extend({
    contactId: z.uuid('Neplatný identifikátor kontaktu').optional(),
    personId: z
      .uuid('Neplatný identifikátor osoby')
      .optional()
      .meta({ description: "The person's emails across your mailboxes (every address of theirs you see; GET /api/people/{id}); a person you do not see: 404" }),
    emailAccountId: z.uuid('Neplatný identifikátor emailového účtu').optional(),
    unread: booleanText.optional(),
    search: searchText.regex(/[\p{L}\p{N}]/u, 'Hľadaný text musí obsahovať písmeno alebo číslicu').optional(),
    from: dateBound('from').optional(),
    to: dateBound('to').optional(),
    sort: z
      .enum(['newest', 'oldest'], { error: 'sort musí byť newest alebo oldest' })
      .default('newest')
      .meta({ description: 'newest (default): by date, newest first; oldest: oldest first' }),
    ids: z
      .string({ error: 'ids musí byť zoznam identifikátorov oddelených čiarkou' })
      .transform((text) => [
        ...new Set(
          text
            .split(',')
            .map((id) => id.trim())
            .filter(Boolean),
        ),
      ])
      .pipe(
        z
          .array(z.uuid('ids obsahuje neplatný identifikátor emailu'))
          .min(1, 'ids musí obsahovať aspoň jeden identifikátor')
          .max(MAX_IDS, `ids môže obsahovať najviac ${MAX_IDS} identifikátorov`),
      )
      .optional()
      .meta({ description: `Only these emails: up to ${MAX_IDS} ids separated by commas (those you may not read are left out); e.g. the ids of an email.created event` }),
    threadId: z
      .string({ error: 'threadId musí byť text' })
      .trim()
      .min(1, 'threadId je prázdne')
      .max(255, 'threadId je príliš dlhé')
      .optional()
      .meta({ description: "Only the emails of this thread (an email's threadId), of every account you may read or of emailAccountId" }),
    awaitingReply: booleanText.optional().meta({
      description:
        'true: only the newest inbound email of each thread awaiting a reply (the set of GET /api/emails/awaiting-reply; its date is ' +
        "waitingSince, so sort=oldest gives that endpoint's order); false or absent: no such filter. Combines with the other filters.",
    }),
  })
  .refine((q) => !q.from || !q.to || q.from < q.to, { message: 'from musí byť pred to', path: ['to'] })
  .refine((q) => !q.contactId || !q.personId, { message: 'Uveďte contactId alebo personId, nie oboje', path: ['personId'] });

const HOURS_MESSAGE = 'olderThanHours musí byť celé číslo od 0 do 87600';

/** GET /api/emails/awaiting-reply: the awaiting threads of the readable accounts (or one of them), oldest waiting first. */
export const awaitingReplyQuery = paginationQuery.extend({
  emailAccountId: z.uuid('Neplatný identifikátor emailového účtu').optional(),
  olderThanHours: z.coerce
    .number({ error: HOURS_MESSAGE })
    .int(HOURS_MESSAGE)
    .min(0, HOURS_MESSAGE)
    .max(87_600, HOURS_MESSAGE)
    .optional()
    .meta({ description: 'Only threads waiting at least this many hours (waitingSince at or before now minus the hours)' }),
});

/** Opt-in to remote images in the HTML body (tracking pixels then reach their senders). */
const remoteImages = z
  .enum(['1', '0', 'true', 'false'], { error: 'remoteImages musí byť 1 alebo 0' })
  .transform((v) => v === '1' || v === 'true')
  .optional()
  .meta({ description: 'Load remote images in html (1/true); by default their address waits in data-crm-src' });

export const emailDetailQuery = z.object({ remoteImages });

export const threadQuery = paginationQuery.extend({ remoteImages });

export const updateEmailBody = z.strictObject({ isRead: z.boolean({ error: 'isRead musí byť true alebo false' }) }).meta({ minProperties: 1 });

export const attachmentParams = z.object({
  id: z.uuid('Neplatný identifikátor'),
  attachmentId: z.uuid('Neplatný identifikátor prílohy'),
});

export const contactIdParams = z.object({ contactId: z.uuid('Neplatný identifikátor kontaktu') });
