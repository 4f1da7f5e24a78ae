import type { CompanyRecord } from './company-records.js';
import type { CompanyResponse } from './company-responses.js';

/** The company of API responses and of `crm-admin companies list --json`; an unnamed company shows its domain. */
export function presentCompany(company: CompanyRecord): CompanyResponse {
  return {
    id: company.id,
    domain: company.domain,
    name: company.name ?? company.domain,
    notes: company.notes,
    registrationNumber: company.registrationNumber,
    vatId: company.vatId,
    address: company.address,
    phone: company.phone,
    website: company.website,
    contactCount: company.contactCount,
    lastEmailAt: company.lastEmailAt,
    createdAt: company.createdAt,
    updatedAt: company.updatedAt,
  };
}
