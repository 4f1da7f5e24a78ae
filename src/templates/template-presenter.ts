import type { TemplateRecord } from './template-repository.js';
import type { TemplateResponse } from './template-responses.js';

export function presentTemplate(t: TemplateRecord, caller: { userId: string; isAdmin: boolean }): TemplateResponse {
  return {
    id: t.id,
    name: t.name,
    subject: t.subject,
    text: t.text,
    html: t.html,
    shared: t.shared,
    authorId: t.userId,
    editable: t.userId === caller.userId || caller.isAdmin,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}
