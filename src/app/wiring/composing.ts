import type { AuditService } from '../../audit/audit-service.js';
import { DraftRepository } from '../../drafts/draft-repository.js';
import { DraftService } from '../../drafts/draft-service.js';
import type { EmailService } from '../../emails/email-service.js';
import type { EmailSenderService } from '../../sending/email-sender-service.js';
import { SignatureRepository } from '../../signatures/signature-repository.js';
import { SignatureService } from '../../signatures/signature-service.js';
import { TemplateRepository } from '../../templates/template-repository.js';
import { TemplateService } from '../../templates/template-service.js';
import type { Plumbing } from './plumbing.js';

// Writing mail (issue 47): the caller's signatures per mailbox (src/signatures) and email templates
// (src/templates), drafts kept on the server (src/drafts). Sending uses all three (src/app/wiring/mail.ts).

export function signatures(p: Plumbing, s: { audit: AuditService }): SignatureService {
  return new SignatureService({ signatures: new SignatureRepository(p.sql), accounts: p.accountAccess, transactions: p.transactions, audit: s.audit });
}

export function templates(p: Plumbing, s: { audit: AuditService }): TemplateService {
  return new TemplateService({ templates: new TemplateRepository(p.sql), transactions: p.transactions, audit: s.audit });
}

/** The sender is asked for when a draft is sent, not when the drafts are built: it keeps failed sends through this service. */
export function drafts(p: Plumbing, s: { emails: EmailService; sending: EmailSenderService }): DraftService {
  return new DraftService({ drafts: new DraftRepository(p.sql), accounts: p.accountAccess, emails: s.emails, sender: () => s.sending });
}
