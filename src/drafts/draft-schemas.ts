import { z } from 'zod';
import { changeBody } from '../shared/validation.js';
import { CONTROL_CHARACTERS, CONTROL_CHARACTERS_MESSAGE } from '../sending/header-text.js';
import { MAX_BODY_CHARS, recipientList, sendAt } from '../sending/sending-schemas.js';

const fields = {
  emailAccountId: z.uuid('Neplatný identifikátor emailového účtu').meta({ description: 'The mailbox it will be sent from (one you may send from)' }),
  to: recipientList.meta({ description: 'As for sending: an array or comma-separated, "Name <a@b.sk>" or "a@b.sk"' }),
  cc: recipientList,
  bcc: recipientList,
  subject: z
    .string({ error: 'Predmet musí byť text' })
    .max(998, 'Predmet je príliš dlhý (najviac 998 znakov)')
    .refine((s) => !CONTROL_CHARACTERS.test(s.replaceAll('\t', ' ')), CONTROL_CHARACTERS_MESSAGE),
  text: z.string({ error: 'Text správy musí byť text' }).max(MAX_BODY_CHARS, 'Text správy je príliš dlhý'),
  html: z.string({ error: 'HTML musí byť text' }).max(MAX_BODY_CHARS, 'HTML správy je príliš dlhé').nullable(),
  replyToEmailId: z
    .uuid('Neplatný identifikátor emailu')
    .nullable()
    .meta({ description: 'The email it answers (one of the same mailbox you may read): sent as a reply, threaded under it; null: a new message' }),
};

/** POST /api/drafts: only the mailbox is required, everything else may come later (autosave). */
export const createDraftBody = z.strictObject({
  emailAccountId: fields.emailAccountId,
  to: fields.to.optional(),
  cc: fields.cc.optional(),
  bcc: fields.bcc.optional(),
  subject: fields.subject.optional(),
  text: fields.text.optional(),
  html: fields.html.optional(),
  replyToEmailId: fields.replyToEmailId.optional(),
});

/** The fields of PATCH /api/drafts/{id}; a form may carry files alone (no field). */
export const updateDraftFields = z.strictObject({
  emailAccountId: fields.emailAccountId.optional(),
  to: fields.to.optional(),
  cc: fields.cc.optional(),
  bcc: fields.bcc.optional(),
  subject: fields.subject.optional(),
  text: fields.text.optional(),
  html: fields.html.optional(),
  replyToEmailId: fields.replyToEmailId.optional(),
});

export const NO_CHANGE = 'Zadajte aspoň jednu zmenu';

/** PATCH /api/drafts/{id}: the fields given replace the stored ones (null clears html and replyToEmailId). */
export const updateDraftBody = changeBody(updateDraftFields, NO_CHANGE);

/** DELETE /api/drafts/{id}/attachments/{fileId}. */
export const draftFileParams = z.object({ id: z.uuid('Neplatný identifikátor'), fileId: z.uuid('Neplatný identifikátor prílohy') });

/** POST /api/drafts/{id}/send: signature as for sending (default: appended). */
export const sendDraftBody = z.strictObject({
  signature: z.boolean({ error: 'signature musí byť true alebo false' }).optional().meta({ description: 'false: without your signature of the mailbox' }),
  sendAt: sendAt.optional(),
});
