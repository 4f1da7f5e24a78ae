import { z } from 'zod';
import { emailAccountSchema } from '../email-accounts/email-account-responses.js';
import { nullableTimestamp, timestamp, uuid } from '../shared/response-fields.js';
import { userSchema } from '../users/user-responses.js';

/** The user as an admin sees it: also where onboarding stands (never a hash). */
export const adminUserSchema = userSchema
  .extend({
    emailSetupSkipped: z.boolean(),
    temporaryPasswordExpiresAt: nullableTimestamp.meta({ description: 'Until the user sets a password; null afterwards' }),
    disabledAt: nullableTimestamp.meta({ description: 'Since when the account is disabled (no login, hidden from the directory); null while active' }),
  })
  .meta({ id: 'AdminUser' });

export const auditLogSchema = z
  .object({
    id: z.string().meta({ description: 'A bigserial as a string (never loses precision)' }),
    action: z.string(),
    userId: uuid.nullable(),
    username: z.string().nullable(),
    actor: z.string().nullable(),
    success: z.boolean(),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    details: z.record(z.string(), z.unknown()),
    createdAt: timestamp,
  })
  .meta({ id: 'AuditLog' });

/** data of POST /api/admin/users. */
export const createdUserData = z.object({
  user: adminUserSchema,
  temporaryPassword: z.string().meta({ description: 'Shown once; only its hash is stored' }),
  emailAccount: emailAccountSchema.optional().meta({ description: 'When mail credentials were given' }),
});

/** data of GET/PATCH /api/admin/users/{id}. */
export const adminUserData = z.object({ user: adminUserSchema });

/** data of POST /api/admin/users/{id}/disable and /enable. */
export const userStatusData = z.object({
  user: adminUserSchema,
  changed: z.boolean().meta({ description: 'false when the user already was in that state (nothing happened)' }),
  revokedSessions: z.number().int().min(0).meta({ description: 'Sessions a disable ended' }),
});

/** data of POST /api/admin/users/{id}/reset-password. */
export const temporaryPasswordData = z.object({ temporaryPassword: z.string().meta({ description: 'Shown once' }) });

export type AdminUserResponse = z.input<typeof adminUserSchema>;
export type AuditLogResponse = z.input<typeof auditLogSchema>;
export type CreatedUserData = z.input<typeof createdUserData>;
export type AdminUserData = z.input<typeof adminUserData>;
export type TemporaryPasswordData = z.input<typeof temporaryPasswordData>;
export type UserStatusData = z.input<typeof userStatusData>;
