import type { Recipient } from '../sending/compose.js';
import type { DraftRecord } from './draft-repository.js';
import type { DraftResponse } from './draft-responses.js';

const list = (rs: Recipient[]) => rs.map((r) => ({ email: r.email, name: r.name ?? null }));

export function presentDraft(d: DraftRecord): DraftResponse {
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
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}
