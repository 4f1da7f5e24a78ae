import type { Recipient } from '../sending/compose.js';
import type { DraftResponse } from './draft-responses.js';
import type { DraftWithFiles } from './draft-service.js';

const list = (rs: Recipient[]) => rs.map((r) => ({ email: r.email, name: r.name ?? null }));

export function presentDraft(d: DraftWithFiles): DraftResponse {
  return {
    id: d.id,
    emailAccountId: d.emailAccountId,
    replyToEmailId: d.replyToEmailId,
    to: list(d.to),
    cc: list(d.cc),
    bcc: list(d.bcc),
    subject: d.subject,
    text: d.text,
    html: d.html,
    attachments: d.attachments.map((f) => ({ id: f.id, name: f.name, type: f.type, size: f.size })),
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}
