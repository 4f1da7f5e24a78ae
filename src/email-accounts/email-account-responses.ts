import { z } from 'zod';
import { nullableTimestamp, timestamp, uuid } from '../shared/response-fields.js';

export const syncStatusSchema = z
  .object({
    status: z.enum(['idle', 'syncing', 'ok', 'error', 'auth_failed']).meta({
      description: 'auth_failed: the mail server refused the credentials; no retry until they are changed',
    }),
    lastSuccessAt: nullableTimestamp,
    lastAttemptAt: nullableTimestamp,
    lastError: z.string().nullable(),
    consecutiveFailures: z.number().int().min(0),
    nextAttemptAt: nullableTimestamp,
  })
  .meta({ id: 'EmailAccountSync' });

/** An email account as a member sees it: never the password, with their role, rights and the sync status. */
export const emailAccountSchema = z
  .object({
    id: uuid.meta({ description: 'The email account id (emailAccountId in contacts and emails)' }),
    email: z.string(),
    jmapAccountId: z.string().meta({ description: "The account's id on the JMAP server" }),
    isPrimary: z.boolean().meta({ description: "The owner's primary account (false in a member's view of a shared account)" }),
    isActive: z.boolean(),
    role: z.enum(['owner', 'editor', 'viewer']).optional().meta({ description: "The caller's role on the account (absent in admin views)" }),
    canRead: z.boolean().optional().meta({ description: 'The caller may read the email content' }),
    canSend: z.boolean().optional().meta({ description: 'The caller may send from the account' }),
    createdAt: timestamp,
    updatedAt: timestamp,
    sync: syncStatusSchema,
  })
  .meta({ id: 'EmailAccount' });

/** data of POST/PATCH /api/email-accounts and POST /api/email-accounts/{id}/sync. */
export const emailAccountData = z.object({ emailAccount: emailAccountSchema });

export type EmailAccountResponse = z.input<typeof emailAccountSchema>;
export type EmailAccountData = z.input<typeof emailAccountData>;
