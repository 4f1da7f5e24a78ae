import { z } from 'zod';
import { nullableTimestamp, pagination, timestamp, uuid } from '../shared/response-fields.js';

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

/** A colleague in the directory: who they are, never their role or anything about their login. */
export const directoryUserSchema = z.object({ id: uuid, username: z.string(), firstName: z.string().nullable(), lastName: z.string().nullable() }).meta({ id: 'DirectoryUser' });

/** data of GET /api/users/directory. */
export const directoryData = z.object({
  items: z.array(directoryUserSchema).meta({ description: 'The colleagues of this page (the list shape of every other list)' }),
  users: z.array(directoryUserSchema).meta({ deprecated: true, description: 'Deprecated (0.5.0): the same as items; removed in a later release' }),
  pagination,
});

export type DirectoryUserResponse = z.input<typeof directoryUserSchema>;
export type DirectoryData = z.input<typeof directoryData>;
