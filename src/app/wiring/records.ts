import type { AuditService } from '../../audit/audit-service.js';
import { ContactRepository } from '../../contacts/contact-repository.js';
import { ContactService } from '../../contacts/contact-service.js';
import { ContactExportService } from '../../contacts/contact-export-service.js';
import { ContactImportService } from '../../contacts/contact-import-service.js';
import { ContactTransferRepository } from '../../contacts/transfer-repository.js';
import { CompanyRepository } from '../../companies/company-repository.js';
import { CompanyService } from '../../companies/company-service.js';
import { PersonRepository } from '../../people/person-repository.js';
import { PersonService } from '../../people/person-service.js';
import { FollowUpDueJob } from '../../follow-ups/follow-up-due-job.js';
import { FollowUpRepository } from '../../follow-ups/follow-up-repository.js';
import { FollowUpService } from '../../follow-ups/follow-up-service.js';
import { TIMESHEET_FILES } from '../../storage/stored-files.js';
import { TimesheetMonth } from '../../timesheets/timesheet-month.js';
import { TimesheetRepository } from '../../timesheets/timesheet-repository.js';
import { TimesheetService } from '../../timesheets/timesheet-service.js';
import { ConversationRepository } from '../../conversations/conversation-repository.js';
import { ConversationService } from '../../conversations/conversation-service.js';
import { CommentRepository } from '../../conversations/comment-repository.js';
import { SearchService } from '../../search/search-service.js';
import { CommentService } from '../../conversations/comment-service.js';
import type { EmailService } from '../../emails/email-service.js';
import { TaskRepository } from '../../tasks/task-repository.js';
import { TaskService } from '../../tasks/task-service.js';
import { TaskDueJob } from '../../tasks/task-due-job.js';
import { TimelineRepository } from '../../timelines/timeline-repository.js';
import { TimelineService } from '../../timelines/timeline-service.js';
import type { Plumbing } from './plumbing.js';

// What staff keep in the CRM besides mail: timesheets (src/timesheets), contacts (src/contacts) and the
// companies behind the correspondents' mail domains (src/companies), one record per correspondent
// above the contacts (src/people), and private follow-up reminders
// per contact and user (src/follow-ups).

interface Audited {
  audit: AuditService;
}

export function timesheets(p: Plumbing, s: Audited): TimesheetService {
  const { uploadLimits } = p.config;
  return new TimesheetService({
    timesheets: new TimesheetRepository(p.sql),
    transactions: p.transactions,
    storage: p.storage.store(TIMESHEET_FILES.store),
    freeSpace: () => p.storage.freeBytes(),
    audit: s.audit,
    logger: p.logger,
    uploadLimits,
    uploadRate: p.throttles.counter('timesheet_uploads', { points: uploadLimits.uploadsPerHour, durationSeconds: 3600 }),
  });
}

export function timesheetMonth(p: Plumbing, s: Audited): TimesheetMonth {
  return new TimesheetMonth({ timesheets: new TimesheetRepository(p.sql), storage: p.storage.store(TIMESHEET_FILES.store), audit: s.audit, logger: p.logger });
}

export function contacts(p: Plumbing, s: Audited): ContactService {
  return new ContactService({ contacts: new ContactRepository(p.sql), accounts: p.accountAccess, transactions: p.transactions, audit: s.audit });
}

export function contactImport(p: Plumbing, s: Audited): ContactImportService {
  return new ContactImportService({
    imports: new ContactTransferRepository(p.sql),
    contacts: new ContactRepository(p.sql),
    accounts: p.accountAccess,
    transactions: p.transactions,
    audit: s.audit,
  });
}

export function contactExport(p: Plumbing, s: Audited): ContactExportService {
  return new ContactExportService({ transfers: new ContactTransferRepository(p.sql), accounts: p.accountAccess, audit: s.audit });
}

export function companies(p: Plumbing, s: Audited): CompanyService {
  return new CompanyService({ companies: new CompanyRepository(p.sql), transactions: p.transactions, audit: s.audit });
}

export function people(p: Plumbing, s: Audited): PersonService {
  return new PersonService({ people: new PersonRepository(p.sql), transactions: p.transactions, audit: s.audit });
}

export function followUps(p: Plumbing): FollowUpService {
  return new FollowUpService({ followUps: new FollowUpRepository(p.sql), accounts: p.accountAccess, transactions: p.transactions });
}

export function followUpDue(p: Plumbing): FollowUpDueJob {
  return new FollowUpDueJob(new FollowUpRepository(p.sql), p.transactions, p.logger);
}

/** The team inbox (src/conversations): conversations of shared mailboxes, their triage and comments. */
export function conversations(p: Plumbing, s: Audited & { emails: EmailService }): ConversationService {
  return new ConversationService({
    conversations: new ConversationRepository(p.sql),
    emails: p.emailRepository,
    emailService: s.emails,
    audit: s.audit,
    transactions: p.transactions,
  });
}

/** One search box (src/search): the first page of the people's, companies' and conversations' lists. */
export function search(s: { people: PersonService; companies: CompanyService; conversations: ConversationService }): SearchService {
  return new SearchService({ people: s.people, companies: s.companies, conversations: s.conversations });
}

export function conversationComments(p: Plumbing, s: Audited & { conversations: ConversationService }): CommentService {
  return new CommentService({
    comments: new CommentRepository(p.sql),
    conversations: new ConversationRepository(p.sql),
    conversationService: s.conversations,
    audit: s.audit,
    transactions: p.transactions,
  });
}

/** Tasks (src/tasks): to-dos linked to a person, a company or a conversation, and their due job. */
export function tasks(p: Plumbing, s: Audited): TaskService {
  return new TaskService({ tasks: new TaskRepository(p.sql), transactions: p.transactions, audit: s.audit });
}

export function taskDue(p: Plumbing): TaskDueJob {
  return new TaskDueJob(new TaskRepository(p.sql), p.transactions, p.logger);
}

/** The timelines of people and companies (src/timelines): emails, tasks and follow-ups in one request. */
export function timelines(p: Plumbing): TimelineService {
  return new TimelineService({ timelines: new TimelineRepository(p.sql), tasks: new TaskRepository(p.sql), followUps: new FollowUpRepository(p.sql) });
}
