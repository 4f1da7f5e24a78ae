import type { Recipient } from '../sending/compose.js';
import type { ScheduledWithFiles } from './scheduled-email-service.js';
import type { ScheduledEmailResponse } from './scheduled-email-responses.js';

const list = (rs: Recipient[] | undefined) => (rs ?? []).map((r) => ({ email: r.email, name: r.name ?? null }));

export function presentScheduled(s: ScheduledWithFiles): ScheduledEmailResponse {
  const request = s.request as { to?: Recipient[]; cc?: Recipient[]; bcc?: Recipient[]; subject?: string };
  return {
    id: s.id,
    status: s.status,
    sendAt: s.sendAt,
    cancellable: s.status === 'scheduled',
    kind: s.kind,
    emailAccountId: s.emailAccountId,
    emailId: s.emailId,
    to: list(request.to),
    cc: list(request.cc),
    bcc: list(request.bcc),
    subject: request.subject ?? null,
    attachments: s.attachments.map((a) => ({ id: a.id, name: a.name, type: a.type, size: a.size })),
    sentAt: s.sentAt,
    sentEmailId: s.sentEmailId,
    failure: s.failureCode ? { code: s.failureCode, message: s.failureMessage ?? '' } : null,
    draftId: s.draftId,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}
