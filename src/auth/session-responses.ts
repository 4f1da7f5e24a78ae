import { z } from 'zod';
import { pagination, timestamp, uuid } from '../shared/response-fields.js';

/** One open session of GET /api/auth/sessions: where and when it was used, never a token or a hash. */
export const sessionSummarySchema = z
  .object({
    id: uuid,
    current: z.boolean().meta({ description: 'The session this request was made with' }),
    createdAt: timestamp.meta({ description: 'When the login happened' }),
    lastUsedAt: timestamp.meta({ description: 'Last use, recorded at most once a minute' }),
    ip: z.string().nullable().meta({ description: 'The address the login came from' }),
    userAgent: z.string().nullable().meta({ description: 'The browser of the login (first 512 characters)' }),
    rememberMe: z.boolean(),
    expiresAt: timestamp.meta({ description: 'When it ends unless used (refresh) before' }),
  })
  .meta({ id: 'SessionSummary' });

/** data of GET /api/auth/sessions. */
export const sessionListData = z.object({
  items: z.array(sessionSummarySchema).meta({ description: 'Your sessions (the list shape of every other list; never more than a page)' }),
  sessions: z.array(sessionSummarySchema).meta({ deprecated: true, description: 'Deprecated (0.5.0): the same as items; removed in a later release' }),
  pagination,
});

/** data of POST /api/auth/sessions/revoke-others. */
export const revokedSessionsData = z.object({ revokedSessions: z.number().int().min(0) });

export type SessionListData = z.input<typeof sessionListData>;
export type RevokedSessionsData = z.input<typeof revokedSessionsData>;
