import { z } from 'zod';
import { nullableTimestamp, timestamp, uuid } from '../shared/response-fields.js';

/** One follow-up of the caller (they are private: nobody else sees it). */
export const followUpSchema = z
  .object({
    id: uuid,
    contactId: uuid,
    contact: z
      .object({
        id: uuid,
        emailAccountId: uuid,
        email: z.string(),
        name: z.string().nullable(),
      })
      .meta({ description: 'Enough of the contact to show the reminder without another request' }),
    dueAt: timestamp,
    note: z.string().nullable(),
    status: z.enum(['due', 'upcoming']).meta({ description: 'due: dueAt is now or past; upcoming: dueAt in the future' }),
    answered: z.boolean().meta({
      description:
        'Mail from the contact dated after the follow-up was last set (updatedAt) has arrived in its email account (counted only where you may read its emails). An answered follow-up stays listed until deleted, and gets no follow_up.due event',
    }),
    notifiedAt: nullableTimestamp.meta({ description: 'When the follow_up.due check handled it (null until it came due; a PUT clears it)' }),
    createdAt: timestamp,
    updatedAt: timestamp.meta({ description: 'When it was last set (PUT)' }),
  })
  .meta({ id: 'FollowUp' });

export const followUpData = z.object({ followUp: followUpSchema });

export type FollowUpResponse = z.input<typeof followUpSchema>;
export type FollowUpData = z.input<typeof followUpData>;
