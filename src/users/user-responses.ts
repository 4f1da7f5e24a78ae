import { z } from 'zod';
import { nullableTimestamp, timestamp, uuid } from '../shared/response-fields.js';

/** The user object of every response (never a hash, never a temporary password). */
export const userSchema = z
  .object({
    id: uuid,
    username: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    role: z.enum(['admin', 'member']),
    changedPassword: z.boolean().meta({ description: 'false while the user still logs in with a temporary password' }),
    lastLogin: nullableTimestamp,
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'User' });

export type UserResponse = z.input<typeof userSchema>;
