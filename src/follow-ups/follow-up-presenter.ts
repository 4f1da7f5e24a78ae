import type { FollowUpRecord } from './follow-up-repository.js';
import type { FollowUpResponse } from './follow-up-responses.js';

export function presentFollowUp(f: FollowUpRecord): FollowUpResponse {
  return {
    id: f.id,
    contactId: f.contactId,
    contact: { id: f.contact.id, emailAccountId: f.contact.emailAccountId, email: f.contact.email, name: f.contact.name },
    dueAt: f.dueAt,
    note: f.note,
    status: f.status,
    answered: f.answered,
    notifiedAt: f.notifiedAt,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
  };
}
