import type { AuditService } from '../../audit/audit-service.js';
import { DraftFiles } from '../../drafts/draft-files.js';
import { DraftRepository } from '../../drafts/draft-repository.js';
import { DraftService } from '../../drafts/draft-service.js';
import type { EmailService } from '../../emails/email-service.js';
import type { EmailSenderService } from '../../sending/email-sender-service.js';
import { SignatureRepository } from '../../signatures/signature-repository.js';
import { SignatureService } from '../../signatures/signature-service.js';
import { TemplateRepository } from '../../templates/template-repository.js';
import { TemplateService } from '../../templates/template-service.js';
import { AttachmentFileRepository } from '../../sending/attachment-files.js';
import { AttachmentCleanupJob } from '../../sending/attachment-cleanup-job.js';
import { ScheduledEmailRepository } from '../../scheduled-emails/scheduled-email-repository.js';
import { ScheduledEmailService } from '../../scheduled-emails/scheduled-email-service.js';
import { ScheduledSendJob } from '../../scheduled-emails/scheduled-send-job.js';
import type { Plumbing } from './plumbing.js';
import type { FileStore } from '../../storage/file-storage.js';
import { ATTACHMENT_FILES } from '../../storage/stored-files.js';

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
  return new DraftService({
    drafts: new DraftRepository(p.sql),
    files: new DraftFiles(attachmentFiles(p), attachmentStore(p), p.config.sending.maxTotalBytes),
    transactions: p.transactions,
    accounts: p.accountAccess,
    emails: s.emails,
    sender: () => s.sending,
  });
}

/** Where the kept files' bytes live: the `attachments` store of the file storage (ADR 0155). */
function attachmentStore(p: Plumbing): FileStore {
  return p.storage.store(ATTACHMENT_FILES.store);
}

/** Files kept for drafts and scheduled sends: their rows. */
function attachmentFiles(p: Plumbing): AttachmentFileRepository {
  return p.once('attachmentFiles', () => new AttachmentFileRepository(p.sql));
}

/** Sends scheduled for later (src/scheduled-emails, docs/adr/0146-scheduled-send.md). */
export function scheduledEmails(p: Plumbing, s: { audit: AuditService; sending: EmailSenderService; drafts: DraftService }): ScheduledEmailService {
  return new ScheduledEmailService({
    scheduled: new ScheduledEmailRepository(p.sql),
    files: attachmentFiles(p),
    storage: attachmentStore(p),
    transactions: p.transactions,
    audit: s.audit,
    sender: () => s.sending,
    drafts: s.drafts,
  });
}

/** The scheduled-sends job of every serve (src/app/background-jobs.ts). */
export function scheduledSends(p: Plumbing, s: { audit: AuditService; sending: EmailSenderService; drafts: DraftService }): ScheduledSendJob {
  return new ScheduledSendJob({
    scheduled: new ScheduledEmailRepository(p.sql),
    files: attachmentFiles(p),
    storage: attachmentStore(p),
    transactions: p.transactions,
    sender: s.sending,
    drafts: s.drafts,
    audit: s.audit,
    logger: p.logger,
  });
}

/** Removes kept files nobody owns any more (src/app/background-jobs.ts). */
export function attachmentCleanup(p: Plumbing): AttachmentCleanupJob {
  return new AttachmentCleanupJob(attachmentFiles(p), attachmentStore(p), p.logger);
}
