import type { ContactRecord } from './contact-records.js';
import type { ContactResponse } from './contact-responses.js';

/** The contact of API responses; user_id is implied by the session and not repeated. */
export function presentContact(contact: ContactRecord): ContactResponse {
  return {
    id: contact.id,
    emailAccountId: contact.emailAccountId,
    email: contact.email,
    name: contact.name,
    notes: contact.notes,
    phone: contact.phone,
    title: contact.title,
    tags: contact.tags,
    lastEmailAt: contact.lastEmailAt,
    companyId: contact.companyId,
    company: contact.company,
    unreadCount: contact.unreadCount,
    ...(contact.emailCount !== undefined ? { emailCount: contact.emailCount } : {}),
    addedAt: contact.addedAt,
    createdAt: contact.createdAt,
    updatedAt: contact.updatedAt,
  };
}
