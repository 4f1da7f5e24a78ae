import type { AuditService } from '../../audit/audit-service.js';
import type { CompanyService } from '../../companies/company-service.js';
import type { ContactService } from '../../contacts/contact-service.js';
import { SignatureRepository } from '../../signatures/signature-repository.js';
import { SignatureService } from '../../signatures/signature-service.js';
import { TemplateRepository } from '../../templates/template-repository.js';
import { TemplateService } from '../../templates/template-service.js';
import type { UserService } from '../../users/user-service.js';
import type { Plumbing } from './plumbing.js';

// Writing mail (issue 47): the caller's signatures per mailbox (src/signatures) and email templates
// (src/templates). Sending uses both (src/app/wiring/mail.ts).

export function signatures(p: Plumbing, s: { audit: AuditService }): SignatureService {
  return new SignatureService({ signatures: new SignatureRepository(p.sql), accounts: p.accountAccess, transactions: p.transactions, audit: s.audit });
}

export function templates(p: Plumbing, s: { audit: AuditService; contacts: ContactService; companies: CompanyService; users: UserService }): TemplateService {
  return new TemplateService({
    templates: new TemplateRepository(p.sql),
    contacts: s.contacts,
    companies: s.companies,
    users: s.users,
    transactions: p.transactions,
    audit: s.audit,
  });
}
