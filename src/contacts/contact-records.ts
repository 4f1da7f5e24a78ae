export const CONTACT_NOT_FOUND = 'Kontakt neexistuje';

/** A contact as the service hands it out: the stored row plus the counts the frontend shows. */
export interface ContactRecord {
  id: string;
  userId: string;
  emailAccountId: string;
  email: string;
  name: string | null;
  notes: string | null;
  phone: string | null;
  /** Job title. */
  title: string | null;
  tags: string[];
  addedAt: Date;
  lastEmailAt: Date | null;
  /** The company of the contact's domain as the caller may see it: null for free-mail and the staff's own domains. */
  companyId: string | null;
  /** The same company with the name readers see (the domain where staff gave none), or null. */
  company: { id: string; name: string } | null;
  createdAt: Date;
  updatedAt: Date;
  unreadCount: number;
  /** Only on single-contact lookups (a count per list item would cost as much as the list). */
  emailCount?: number;
}

export interface ContactRow {
  id: string;
  user_id: string;
  email_account_id: string;
  email: string;
  name: string | null;
  notes: string | null;
  phone: string | null;
  title: string | null;
  tags: string[];
  added_at: Date;
  last_email_at: Date | null;
  company: { id: string; name: string } | null;
  created_at: Date;
  updated_at: Date;
  unread_count: number;
  email_count?: number;
}

export function toContactRecord(row: ContactRow): ContactRecord {
  return {
    id: row.id,
    userId: row.user_id,
    emailAccountId: row.email_account_id,
    email: row.email,
    name: row.name,
    notes: row.notes,
    phone: row.phone,
    title: row.title,
    tags: row.tags,
    addedAt: row.added_at,
    lastEmailAt: row.last_email_at,
    companyId: row.company?.id ?? null,
    company: row.company,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    unreadCount: row.unread_count,
    ...(row.email_count !== undefined ? { emailCount: row.email_count } : {}),
  };
}
