import { z } from 'zod';
import { changeBody, oneOfRequired } from '../shared/validation.js';
import { CONTROL_CHARACTERS, CONTROL_CHARACTERS_MESSAGE } from '../sending/header-text.js';
import { unknownPlaceholders } from './template-render.js';

/** Bounds of a template, also CHECKs of migrations/0042-signatures-templates-drafts.ts. */
export const MAX_TEMPLATE_NAME = 200;
export const MAX_TEMPLATE_TEXT = 100_000;
export const MAX_TEMPLATE_HTML = 200_000;

/** A placeholder the render does not know is refused when the template is saved, named in the message. */
function knownPlaceholders(value: string, ctx: z.RefinementCtx): void {
  const unknown = unknownPlaceholders(value);
  if (unknown.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message: `Neznámy zástupný symbol ${unknown.map((u) => `{{${u}}}`).join(', ')} (povolené: {{contact.name}}, {{contact.firstName}}, {{contact.lastName}}, {{company.name}}, {{user.firstName}}, {{user.lastName}})`,
    });
  }
}

const fields = {
  name: z
    .string({ error: 'Názov šablóny je povinný' })
    .trim()
    .min(1, 'Názov šablóny je povinný')
    .max(MAX_TEMPLATE_NAME, `Názov šablóny môže mať najviac ${MAX_TEMPLATE_NAME} znakov`),
  subject: z
    .string({ error: 'Predmet musí byť text' })
    .max(998, 'Predmet je príliš dlhý (najviac 998 znakov)')
    .refine((s) => !CONTROL_CHARACTERS.test(s.replaceAll('\t', ' ')), CONTROL_CHARACTERS_MESSAGE)
    .superRefine(knownPlaceholders)
    .meta({ description: 'May hold placeholders; their values never bring a line break into the header' }),
  text: z.string({ error: 'Text šablóny je povinný' }).max(MAX_TEMPLATE_TEXT, `Text šablóny môže mať najviac ${MAX_TEMPLATE_TEXT} znakov`).superRefine(knownPlaceholders),
  html: z
    .string({ error: 'HTML šablóny musí byť text' })
    .max(MAX_TEMPLATE_HTML, `HTML šablóny môže mať najviac ${MAX_TEMPLATE_HTML} znakov`)
    .superRefine(knownPlaceholders)
    .nullable()
    .optional()
    .meta({ description: 'Cleaned by the sanitiser of email bodies when saved; values are inserted HTML-escaped' }),
  shared: z
    .boolean({ error: 'shared musí byť true alebo false' })
    .meta({ description: 'false: yours alone; true: every staff member lists and uses it (only you or an admin edit it)' }),
};

export const createTemplateBody = z.strictObject({ ...fields, shared: fields.shared.default(false) });

export const updateTemplateBody = changeBody(
  z.strictObject({
    name: fields.name.optional(),
    subject: fields.subject.optional(),
    text: fields.text.optional(),
    html: fields.html,
    shared: fields.shared.optional(),
  }),
  'Zadajte aspoň jednu zmenu (name, subject, text, html, shared)',
);

/** POST /api/templates/{id}/render: for a contact or a person, exactly one of them. */
export const renderTemplateBody = oneOfRequired(
  z.strictObject({
    contactId: z.uuid('Neplatný identifikátor kontaktu').optional().meta({ description: 'The contact whose values fill the placeholders (one you may see)' }),
    personId: z
      .uuid('Neplatný identifikátor osoby')
      .optional()
      .meta({ description: 'Or the person (one you see): {{contact.*}} take the name and {{company.name}} the company GET /api/people/{id} shows' }),
  }),
  ['contactId', 'personId'],
  'Uveďte contactId alebo personId',
).refine((v) => v.contactId === undefined || v.personId === undefined, { message: 'Uveďte contactId alebo personId, nie oboje', path: ['personId'] });
