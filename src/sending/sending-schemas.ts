import { z } from 'zod';
import { looseBoolean, oneOfRequired } from '../shared/validation.js';
import type { Recipient } from './compose.js';
import { CONTROL_CHARACTERS, CONTROL_CHARACTERS_MESSAGE, MAX_DISPLAY_NAME } from './header-text.js';

/** Text and HTML bodies each (JSON bodies are capped lower by the JSON parser's 100 kB). */
export const MAX_BODY_CHARS = 1_000_000;

const ADDRESS = z.email('Neplatná emailová adresa');
const NAMED = /^\s*"?([^"<>]*?)"?\s*<([^<>]+)>\s*$/;

/** "ana@firma.sk" or "Ana Nová <ana@firma.sk>"; a list may come as an array, comma separated, or both. */
export const recipientList = z.preprocess(
  (value) => {
    const items: unknown[] = Array.isArray(value) ? value : value === undefined || value === '' ? [] : [value];
    return items
      .flatMap((item) => (typeof item === 'string' ? item.split(',') : [item]))
      .map((s) => (typeof s === 'string' ? s.trim() : s))
      .filter((s) => s !== '');
  },
  z.array(
    z.string({ error: 'Adresát musí byť text' }).transform((text, ctx): Recipient => {
      // A line break in a name would write headers into the message (issue 26): refused, not cleaned.
      if (CONTROL_CHARACTERS.test(text)) {
        ctx.addIssue({ code: 'custom', message: `Adresát obsahuje riadiace znaky (napr. koniec riadka): ${JSON.stringify(text.slice(0, 100))}` });
        return z.NEVER;
      }
      const named = NAMED.exec(text);
      const email = (named ? named[2] : text).trim();
      if (!ADDRESS.safeParse(email).success) {
        ctx.addIssue({ code: 'custom', message: `Neplatná emailová adresa: ${text.slice(0, 100)}` });
        return z.NEVER;
      }
      const name = named?.[1]?.trim();
      return name ? { email, name: name.slice(0, MAX_DISPLAY_NAME) } : { email };
    }),
  ),
);

/** A scheduled send goes at most this far ahead. */
const YEAR_MS = 366 * 24 * 3600 * 1000;

/**
 * sendAt: send later (202, src/scheduled-emails) instead of now. An ISO 8601 time with its offset, not
 * in the past, at most a year ahead. A few seconds ahead plus DELETE /api/scheduled-emails/{id} is an
 * undo window.
 */
export const sendAt = z
  .string({ error: 'Čas odoslania (sendAt) musí byť text' })
  .refine(
    (v) => z.iso.datetime({ offset: true }).safeParse(v).success,
    'Čas odoslania (sendAt) musí byť dátum a čas podľa ISO 8601 s časovou zónou, napr. 2026-12-24T09:00:00+01:00',
  )
  .transform((v) => new Date(v))
  .refine((d) => d.getTime() >= Date.now(), 'Čas odoslania (sendAt) nesmie byť v minulosti')
  .refine((d) => d.getTime() <= Date.now() + YEAR_MS, 'Čas odoslania (sendAt) môže byť najviac rok dopredu')
  .meta({
    description:
      'Send later: the request answers 202 with data.scheduled and the message goes within seconds of this time (ISO 8601 with offset; not in the past, at most a year ahead). ' +
      'A few seconds ahead plus DELETE /api/scheduled-emails/{id} is an undo window.',
    example: '2026-12-24T09:00:00+01:00',
  });

/** JSON true/false, or the text a multipart form field carries. */
const flag = looseBoolean('Očakáva sa true alebo false (aj "true"/"false" alebo 1/0)');

const common = {
  to: recipientList.optional(),
  cc: recipientList.optional(),
  bcc: recipientList.optional(),
  subject: z
    .string({ error: 'Predmet musí byť text' })
    .max(998, 'Predmet je príliš dlhý (najviac 998 znakov)')
    .refine((s) => !CONTROL_CHARACTERS.test(s.replaceAll('\t', ' ')), CONTROL_CHARACTERS_MESSAGE)
    .optional(),
  text: z.string({ error: 'Text správy je povinný' }).max(MAX_BODY_CHARS, 'Text správy je príliš dlhý'),
  html: z.string({ error: 'HTML musí byť text' }).max(MAX_BODY_CHARS, 'HTML správy je príliš dlhé').optional(),
  signature: flag.optional().meta({ description: 'false: without your signature of the mailbox (PUT /api/email-accounts/{id}/signature); default: appended' }),
  sendAt: sendAt.optional(),
};

/** POST /api/emails/:id/reply: recipients default to the original's (reply-all adds its To and Cc as Cc). */
export const replyBody = z.strictObject({ ...common, replyAll: flag.optional() });

/** POST /api/emails: from emailAccountId, or from the account of contactId (whose address is then the default To). */
export const composeBody = oneOfRequired(
  z.strictObject({
    ...common,
    text: common.text.optional().meta({ description: 'Required unless templateId is given (the template then supplies it)' }),
    emailAccountId: z.uuid('Neplatný identifikátor emailového účtu').optional(),
    contactId: z.uuid('Neplatný identifikátor kontaktu').optional(),
    personId: z
      .uuid('Neplatný identifikátor osoby')
      .optional()
      .meta({ description: 'A person you see (GET /api/people/{id}), with emailAccountId: the default To is their address with the newest mail; templateId is rendered for them' }),
    templateId: z
      .uuid('Neplatný identifikátor šablóny')
      .optional()
      .meta({ description: 'A template you may use, rendered for personId or contactId on the server: it supplies subject, text and html where they are not given' }),
  }),
  ['emailAccountId', 'contactId'],
  'Uveďte emailAccountId alebo contactId',
)
  .refine((v) => v.text !== undefined || v.templateId !== undefined, { message: 'Text správy je povinný', path: ['text'] })
  .refine((v) => v.templateId === undefined || v.contactId !== undefined || v.personId !== undefined, {
    message: 'Šablóna sa vypĺňa pre kontakt alebo osobu: uveďte contactId alebo personId',
    path: ['contactId'],
  })
  .refine((v) => v.personId === undefined || (v.emailAccountId !== undefined && v.contactId === undefined), {
    message: 'K osobe uveďte emailAccountId (z ktorého účtu sa posiela), nie contactId',
    path: ['personId'],
  });

/** POST /api/emails/:id/forward: to whom (required), the text above the quoted email; from its mailbox unless emailAccountId names another. */
export const forwardBody = z.strictObject({
  to: recipientList.refine((list) => list.length > 0, 'Zadajte aspoň jedného adresáta'),
  cc: common.cc,
  bcc: common.bcc,
  text: common.text,
  html: common.html,
  signature: common.signature,
  sendAt: common.sendAt,
  emailAccountId: z
    .uuid('Neplatný identifikátor emailového účtu')
    .optional()
    .meta({ description: "The mailbox to send from (one you may send from); default: the forwarded email's own" }),
});

/** Idempotency-Key (draft-ietf-httpapi-idempotency-key-header): any visible ASCII, at most 255 characters. */
export const idempotencyKey = z.string().regex(/^[\x21-\x7e]{1,255}$/, 'Neplatná hlavička Idempotency-Key (1 až 255 viditeľných ASCII znakov)');
