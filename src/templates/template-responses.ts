import { z } from 'zod';
import { timestamp, uuid } from '../shared/response-fields.js';

export const templateSchema = z
  .object({
    id: uuid,
    name: z.string(),
    subject: z.string(),
    text: z.string(),
    html: z.string().nullable(),
    shared: z.boolean(),
    authorId: uuid.meta({ description: 'Who wrote it: only they (or an admin) may change or delete a shared template' }),
    editable: z.boolean().meta({ description: 'Whether you may change and delete it' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'EmailTemplate' });

export const templateData = z.object({ template: templateSchema });

export const renderedTemplateData = z
  .object({
    subject: z.string().meta({ description: 'Placeholders filled; no control characters' }),
    text: z.string(),
    html: z.string().nullable().meta({ description: 'Placeholders filled with HTML-escaped values; null when the template has no HTML' }),
  })
  .meta({ id: 'RenderedTemplate' });

export type TemplateResponse = z.input<typeof templateSchema>;
export type TemplateData = z.input<typeof templateData>;
export type RenderedTemplateData = z.input<typeof renderedTemplateData>;
