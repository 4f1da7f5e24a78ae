import type { Sequelize } from 'sequelize';
import type { AppConfig } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { PasswordHasher } from '../users/password-hasher.js';
import type { AppMetrics } from '../metrics/metrics.js';
import type { AuditService } from '../audit/audit-service.js';
import type { AuditQueryService } from '../audit/audit-query-service.js';
import type { UserService } from '../users/user-service.js';
import type { TokenService } from '../auth/token-service.js';
import type { SessionService } from '../auth/session-service.js';
import type { UserAdminService } from '../users/user-admin-service.js';
import type { AuthService } from '../auth/auth-service.js';
import type { UserDirectory } from '../users/user-directory.js';
import type { UserLifecycleService } from '../users/user-lifecycle-service.js';
import type { SessionManagement } from '../auth/session-management.js';
import type { ApiTokenService } from '../api-tokens/api-token-service.js';
import type { EmailAccountSharingService } from '../email-accounts/email-account-sharing-service.js';
import type { EmailAccountService } from '../email-accounts/email-account-service.js';
import type { EmailAccountAdminService } from '../email-accounts/email-account-admin-service.js';
import { PasswordReseal } from '../email-accounts/password-seal.js';
import type { TimesheetService } from '../timesheets/timesheet-service.js';
import type { TimesheetMonth } from '../timesheets/timesheet-month.js';
import type { ContactService } from '../contacts/contact-service.js';
import type { CompanyService } from '../companies/company-service.js';
import type { PersonService } from '../people/person-service.js';
import type { ContactImportService } from '../contacts/contact-import-service.js';
import type { ContactExportService } from '../contacts/contact-export-service.js';
import type { FollowUpService } from '../follow-ups/follow-up-service.js';
import type { FollowUpDueJob } from '../follow-ups/follow-up-due-job.js';
import type { TaskService } from '../tasks/task-service.js';
import type { TaskDueJob } from '../tasks/task-due-job.js';
import type { TimelineService } from '../timelines/timeline-service.js';
import type { ReadStatePusher } from '../emails/read-state-pusher.js';
import type { EmailService } from '../emails/email-service.js';
import type { ConversationService } from '../conversations/conversation-service.js';
import type { CommentService } from '../conversations/comment-service.js';
import type { SearchService } from '../search/search-service.js';
import type { AttachmentDownloads } from '../emails/attachment-download.js';
import type { HtmlBodies } from '../emails/html-bodies.js';
import type { HtmlRenderPool } from '../emails/html-render-pool.js';
import type { SyncService } from '../sync/sync-service.js';
import type { ResyncService } from '../sync/resync-service.js';
import type { SyncStatusService } from '../sync/sync-status-service.js';
import type { EmailSenderService } from '../sending/email-sender-service.js';
import type { SignatureService } from '../signatures/signature-service.js';
import type { TemplateService } from '../templates/template-service.js';
import type { DraftService } from '../drafts/draft-service.js';
import type { ScheduledEmailService } from '../scheduled-emails/scheduled-email-service.js';
import type { ScheduledSendJob } from '../scheduled-emails/scheduled-send-job.js';
import type { AttachmentCleanupJob } from '../sending/attachment-cleanup-job.js';
import type { BackupService } from '../backup/backup-service.js';
import type { RestoreService } from '../backup/restore-service.js';
import type { RetentionService } from '../maintenance/retention-service.js';
import type { StorageService } from '../storage/storage-service.js';
import type { PrivacyService } from '../privacy/privacy-service.js';
import type { EventHub } from '../events/event-hub.js';
import type { OutboxPruner } from '../events/outbox-pruner.js';
import type { WebhookService } from '../webhooks/webhook-service.js';
import type { WebhookDeliveryJob } from '../webhooks/webhook-delivery-job.js';
import { Plumbing, type ServicesOptions } from './wiring/plumbing.js';
import { wiring } from './wiring/areas.js';

const people = wiring.people;
const accounts = wiring.accounts;
const records = wiring.records;
const mail = wiring.mail;
const operations = wiring.operations;
const composing = wiring.composing;

/**
 * The composition root: every service is a plain class whose repositories and collaborators are
 * handed in here. HTTP routes, crm-admin commands and the sync job all receive this same object.
 *
 * Every part is built on first use and then kept (ADR 0113): a crm-admin command asks for one area
 * and builds only it and what it needs, never the event hub, the sync or the metrics registry of a
 * serving instance. Heavy libraries load where they are used (src/shared/lazy-require.ts), so a part
 * that is never built costs nothing but its own small module. How each part is built lives in
 * src/app/wiring/<area>.ts (ADR 0122); what several areas share (SQL, transactions, repositories) in
 * src/app/wiring/plumbing.ts, reached here as `this.p`. The getters' order follows the areas.
 */
export class Services {
  /** The shared plumbing and the one cache of built parts. */
  private readonly p: Plumbing;

  constructor(config: AppConfig, sequelize: Sequelize, logger: Logger, options: ServicesOptions = {}) {
    this.p = new Plumbing(config, sequelize, logger, options);
  }

  /** Builds the part the first time it is asked for; the same instance afterwards. */
  private once<T>(name: keyof Services, build: () => T): T {
    return this.p.once(name, build);
  }

  /** Whether a part has been built (shutdown closes only what exists). */
  isBuilt(name: keyof Services): boolean {
    return this.p.has(name);
  }

  // Shared by every area
  get metrics(): AppMetrics {
    return this.once('metrics', () => operations().metrics(this));
  }
  get secretBox(): SecretBox {
    return this.p.secretBox;
  }
  get hasher(): PasswordHasher {
    return this.p.hasher;
  }

  // Audit, users and sessions
  get audit(): AuditService {
    return this.once('audit', () => people().audit(this.p));
  }
  get auditQuery(): AuditQueryService {
    return this.once('auditQuery', () => people().auditQuery(this.p));
  }
  get users(): UserService {
    return this.once('users', () => people().users(this.p, this));
  }
  get tokens(): TokenService {
    return this.once('tokens', () => people().tokens(this.p));
  }
  get sessions(): SessionService {
    return this.once('sessions', () => people().sessions(this.p, this));
  }
  get userAdmin(): UserAdminService {
    return this.once('userAdmin', () => people().userAdmin(this.p, this));
  }
  get auth(): AuthService {
    return this.once('auth', () => people().auth(this.p, this));
  }
  get userDirectory(): UserDirectory {
    return this.once('userDirectory', () => people().userDirectory(this.p));
  }
  get userLifecycle(): UserLifecycleService {
    return this.once('userLifecycle', () => people().userLifecycle(this.p, this));
  }
  get sessionManagement(): SessionManagement {
    return this.once('sessionManagement', () => people().sessionManagement(this.p, this));
  }
  get apiTokens(): ApiTokenService {
    return this.once('apiTokens', () => people().apiTokens(this.p, this));
  }

  // Email accounts
  get emailAccountSharing(): EmailAccountSharingService {
    return this.once('emailAccountSharing', () => accounts().emailAccountSharing(this.p, this));
  }
  get emailAccounts(): EmailAccountService {
    return this.once('emailAccounts', () => accounts().emailAccounts(this.p, this));
  }
  get emailAccountAdmin(): EmailAccountAdminService {
    return this.once('emailAccountAdmin', () => accounts().emailAccountAdmin(this.p, this));
  }
  get passwordReseal(): PasswordReseal {
    // Every command runs it (src/app/context.ts): built here, without the email-accounts area (JMAP).
    return this.once('passwordReseal', () => new PasswordReseal({ accounts: this.p.emailAccountRepository, secretBox: this.p.secretBox, logger: this.p.logger }));
  }

  // Timesheets and contacts
  get timesheets(): TimesheetService {
    return this.once('timesheets', () => records().timesheets(this.p, this));
  }
  get timesheetMonth(): TimesheetMonth {
    return this.once('timesheetMonth', () => records().timesheetMonth(this.p, this));
  }
  get contacts(): ContactService {
    return this.once('contacts', () => records().contacts(this.p, this));
  }
  get contactImport(): ContactImportService {
    return this.once('contactImport', () => records().contactImport(this.p, this));
  }
  get contactExport(): ContactExportService {
    return this.once('contactExport', () => records().contactExport(this.p, this));
  }
  get companies(): CompanyService {
    return this.once('companies', () => records().companies(this.p, this));
  }
  /** One record per correspondent above the contacts (src/people, docs/adr/0135). */
  get people(): PersonService {
    return this.once('people', () => records().people(this.p, this));
  }
  get followUps(): FollowUpService {
    return this.once('followUps', () => records().followUps(this.p));
  }
  /** The due job of every serve announces follow-ups through the events outbox (ADR 0119). */
  get followUpDue(): FollowUpDueJob {
    return this.once('followUpDue', () => records().followUpDue(this.p));
  }
  /** Tasks (src/tasks, docs/adr/0140); their due job announces them through the events outbox like the follow-ups'. */
  get tasks(): TaskService {
    return this.once('tasks', () => records().tasks(this.p, this));
  }
  get taskDue(): TaskDueJob {
    return this.once('taskDue', () => records().taskDue(this.p));
  }
  /** Timelines of people and companies (src/timelines, docs/adr/0141). */
  get timelines(): TimelineService {
    return this.once('timelines', () => records().timelines(this.p));
  }

  // Emails, the mail sync and sending
  get readStatePusher(): ReadStatePusher {
    return this.once('readStatePusher', () => mail().readStatePusher(this.p, this));
  }
  get emails(): EmailService {
    return this.once('emails', () => mail().emails(this.p, this));
  }
  get conversations(): ConversationService {
    return this.once('conversations', () => records().conversations(this.p, this));
  }
  get search(): SearchService {
    return this.once('search', () => records().search(this));
  }
  get comments(): CommentService {
    return this.once('comments', () => records().conversationComments(this.p, this));
  }
  get emailAttachments(): AttachmentDownloads {
    return this.once('emailAttachments', () => mail().emailAttachments(this.p, this));
  }
  get emailHtml(): HtmlBodies {
    return this.once('emailHtml', () => mail().emailHtml(this.p, this));
  }
  get htmlRenderPool(): HtmlRenderPool {
    return this.once('htmlRenderPool', () => mail().htmlRenderPool(this.p));
  }
  get mailSync(): SyncService {
    return this.once('mailSync', () => mail().mailSync(this.p, this));
  }
  get syncStatus(): SyncStatusService {
    return this.once('syncStatus', () => mail().syncStatus(this.p));
  }
  get mailResync(): ResyncService {
    return this.once('mailResync', () => mail().mailResync(this.p, this));
  }
  get sending(): EmailSenderService {
    return this.once('sending', () => mail().sending(this.p, this));
  }
  get signatures(): SignatureService {
    return this.once('signatures', () => composing().signatures(this.p, this));
  }
  get templates(): TemplateService {
    return this.once('templates', () => composing().templates(this.p, this));
  }
  get drafts(): DraftService {
    return this.once('drafts', () => composing().drafts(this.p, this));
  }
  /** Sends scheduled for later (sendAt), their list and cancel (src/scheduled-emails). */
  get scheduledEmails(): ScheduledEmailService {
    return this.once('scheduledEmails', () => composing().scheduledEmails(this.p, this));
  }
  /** The job that sends them at their time, once across instances (src/app/background-jobs.ts, ADR 0146). */
  get scheduledSends(): ScheduledSendJob {
    return this.once('scheduledSends', () => composing().scheduledSends(this.p, this));
  }
  /** Removes the kept files of drafts and scheduled sends nobody owns any more. */
  get attachmentCleanup(): AttachmentCleanupJob {
    return this.once('attachmentCleanup', () => composing().attachmentCleanup(this.p));
  }

  // Backup and restore, retention and privacy, live updates
  get backup(): BackupService {
    return this.once('backup', () => operations().backup(this.p, this));
  }
  get restore(): RestoreService {
    return this.once('restore', () => operations().restore(this.p, this));
  }
  /** Stored files for the operator: migrate-storage, the orphan sweep (src/storage). */
  get storage(): StorageService {
    return this.once('storage', () => operations().storage(this.p, this));
  }
  get retention(): RetentionService {
    return this.once('retention', () => operations().retention(this.p, this));
  }
  get privacy(): PrivacyService {
    return this.once('privacy', () => operations().privacy(this.p, this));
  }
  get events(): EventHub {
    return this.once('events', () => operations().events(this.p, this));
  }
  get outboxPruner(): OutboxPruner {
    return this.once('outboxPruner', () => operations().outboxPruner(this.p));
  }
  /** Signed webhooks of the administrators (src/webhooks). */
  get webhooks(): WebhookService {
    return this.once('webhooks', () => operations().webhooks(this.p, this));
  }
  /** Outbox events to the webhooks: every serve runs it each second (ADR 0134). */
  get webhookDelivery(): WebhookDeliveryJob {
    return this.once('webhookDelivery', () => operations().webhookDelivery(this.p));
  }
}

/** The composition root of one process; nothing is built until it is asked for (see Services). */
export function buildServices(config: AppConfig, sequelize: Sequelize, logger: Logger, options: ServicesOptions = {}): Services {
  return new Services(config, sequelize, logger, options);
}
