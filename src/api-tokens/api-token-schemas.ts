import { z } from 'zod';
import { TOKEN_SCOPES } from './api-token-scopes.js';

const SCOPES_MESSAGE = `scopes musí byť zoznam oprávnení: ${TOKEN_SCOPES.join(', ')}`;

/** POST /api/tokens. Strict like every body: an unknown field is a 400. */
export const createApiTokenBody = z.strictObject({
  name: z
    .string({ error: 'Názov tokenu musí byť text' })
    .trim()
    .min(1, 'Názov tokenu je povinný')
    .max(100, 'Názov tokenu môže mať najviac 100 znakov')
    .meta({ description: 'What the token is for (e.g. "ERP export"), 1-100 characters' }),
  scopes: z
    .array(z.enum(TOKEN_SCOPES, { error: SCOPES_MESSAGE }), { error: SCOPES_MESSAGE })
    .min(1, 'Token potrebuje aspoň jedno oprávnenie')
    .max(TOKEN_SCOPES.length, SCOPES_MESSAGE)
    .meta({ description: '<area>:read or <area>:write (write includes read) per area, and admin (admins only)' }),
  expiresAt: z.iso
    .datetime({ offset: true, error: 'expiresAt musí byť dátum a čas v ISO 8601 s časovou zónou' })
    .transform((text) => new Date(text))
    .nullable()
    .optional()
    .meta({ description: 'When the token stops working (ISO 8601 with an offset, in the future); absent or null: never' }),
});
