import type { ContactRecord } from './contact-records.js';

/** The contact of API responses; user_id is implied by the session and not repeated. */
export function presentContact(contact: ContactRecord) {
  return {
    id: contact.id,
    accountId: contact.emailAccountId,
    email: contact.email,
    name: contact.name,
    notes: contact.notes,
    lastEmailAt: contact.lastEmailAt,
    unreadCount: contact.unreadCount,
    ...(contact.emailCount !== undefined ? { emailCount: contact.emailCount } : {}),
    addedAt: contact.addedAt,
    createdAt: contact.createdAt,
    updatedAt: contact.updatedAt,
  };
}

export type ContactView = ReturnType<typeof presentContact>;
