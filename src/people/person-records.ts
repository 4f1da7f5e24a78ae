/** A person as the service hands it out: what the caller sees of them (person-visibility.ts). */
export interface PersonRecord {
  id: string;
  /** The name staff gave (shown through mail), else the name of the caller's newest contact of them, else null. */
  name: string | null;
  /** The addresses the caller sees, the one with the newest mail first. */
  emails: string[];
  company: { id: string; name: string } | null;
  phone: string | null;
  title: string | null;
  tags: string[];
  notes: string | null;
  lastEmailAt: Date | null;
  /** The mailboxes (whose mail the caller may read) that hold a contact of them. */
  emailAccountIds: string[];
  /** One of the installation's own addresses is theirs (colleagues.ts). */
  colleague: boolean;
}

export interface PersonRow {
  id: string;
  shared_name: string | null;
  phone: string | null;
  title: string | null;
  tags: string[];
  notes: string | null;
  company: { id: string; name: string } | null;
  contact_name: string | null;
  emails: string[];
  account_ids: string[];
  last_email_at: Date | null;
  colleague: boolean;
}

export function toPersonRecord(row: PersonRow): PersonRecord {
  return {
    id: row.id,
    name: row.shared_name ?? row.contact_name,
    // One row per contact: an address held by two mailboxes comes twice (the first is its newest).
    emails: [...new Set(row.emails)],
    company: row.company,
    phone: row.phone,
    title: row.title,
    tags: row.tags,
    notes: row.notes,
    lastEmailAt: row.last_email_at,
    emailAccountIds: [...row.account_ids].sort(),
    colleague: row.colleague,
  };
}

/** The stored shared fields of a person, as a merge combines them (person-merge.ts). */
export interface PersonFields {
  id: string;
  name: string | null;
  phone: string | null;
  title: string | null;
  tags: string[];
  notes: string | null;
  companyId: string | null;
}
