/** A company as the service hands it out: the stored row plus the figures over the contacts the reader sees. */
export interface CompanyRecord {
  id: string;
  domain: string;
  /** The name staff gave it, or null (the API then shows the domain). */
  name: string | null;
  notes: string | null;
  registrationNumber: string | null;
  vatId: string | null;
  address: string | null;
  phone: string | null;
  website: string | null;
  contactCount: number;
  lastEmailAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface CompanyRow {
  id: string;
  domain: string;
  name: string | null;
  notes: string | null;
  registration_number: string | null;
  vat_id: string | null;
  address: string | null;
  phone: string | null;
  website: string | null;
  contact_count: number;
  last_email_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function toCompanyRecord(row: CompanyRow): CompanyRecord {
  return {
    id: row.id,
    domain: row.domain,
    name: row.name,
    notes: row.notes,
    registrationNumber: row.registration_number,
    vatId: row.vat_id,
    address: row.address,
    phone: row.phone,
    website: row.website,
    contactCount: row.contact_count,
    lastEmailAt: row.last_email_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
