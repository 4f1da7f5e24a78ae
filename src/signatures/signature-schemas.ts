import { z } from 'zod';

/** Bounds of a signature, also CHECKs of migrations/0042-signatures-templates-drafts.ts. */
export const MAX_SIGNATURE_TEXT = 10_000;
export const MAX_SIGNATURE_HTML = 50_000;

/** PUT /api/email-accounts/{id}/signature: replaces the caller's signature for that mailbox. */
export const putSignatureBody = z.strictObject({
  text: z
    .string({ error: 'Text podpisu je povinný (môže byť prázdny)' })
    .max(MAX_SIGNATURE_TEXT, `Text podpisu môže mať najviac ${MAX_SIGNATURE_TEXT} znakov`)
    .meta({ description: `Plain-text signature (at most ${MAX_SIGNATURE_TEXT} characters); empty: no signature` }),
  html: z
    .string({ error: 'HTML podpisu musí byť text' })
    .max(MAX_SIGNATURE_HTML, `HTML podpisu môže mať najviac ${MAX_SIGNATURE_HTML} znakov`)
    .nullable()
    .optional()
    .meta({ description: `HTML signature (at most ${MAX_SIGNATURE_HTML} characters), cleaned by the same sanitiser as email bodies; absent or null: the text, escaped` }),
});
