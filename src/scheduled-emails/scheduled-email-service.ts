/**
 * Scheduled send and undo (issue 47, docs/adr/0146-scheduled-send.md): compose, reply, forward and a
 * draft's send with `sendAt` keep the request here instead of sending it; the scheduled-sends job
 * sends it at its time, once. What can be checked now is checked now (the right to send from the
 * mailbox, the email answered, the template, the recipients); the rights are checked again when it
 * goes. A cancel before it goes keeps what was typed as a draft: an undo window is a sendAt a few
 * seconds ahead plus this cancel.
 */
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { Transactions, Tx } from '../db/transactions.js';
import { ConflictError, NotFoundError } from '../errors/app-errors.js';
import type { UploadTarget } from '../sending/attachment-intake.js';
import type { FileStore } from '../storage/file-storage.js';
import { keptFiles, type AttachmentFileRepository, type FileOwner, type StoredFile } from '../sending/attachment-files.js';
import { newMessageId } from '../sending/compose.js';
import type { EmailSenderService, OutgoingMessage } from '../sending/email-sender-service.js';
import type { DraftKeeper } from '../sending/failed-send.js';
import type { ComposeBody, ForwardBody, ReplyBody } from '../sending/send-request.js';
import type { Page, PageRequest } from '../shared/pagination.js';
import { keptDraftOf } from './scheduled-draft.js';
import type { ScheduledEmailRepository, ScheduledKind, ScheduledRecord, ScheduledStatus } from './scheduled-email-repository.js';

export const SCHEDULED_NOT_FOUND = 'Naplánovaný email neexistuje';
const ALREADY: Record<Exclude<ScheduledStatus, 'scheduled'>, string> = {
  sending: 'Email sa práve odosiela, odoslanie už nemožno zrušiť',
  sent: 'Email už bol odoslaný, odoslanie už nemožno zrušiť',
  failed: 'Email sa nepodarilo odoslať; nie je čo zrušiť',
  cancelled: 'Odoslanie emailu už bolo zrušené',
};

export interface ScheduledWithFiles extends ScheduledRecord {
  attachments: StoredFile[];
}

export interface ScheduledEmailDeps {
  scheduled: ScheduledEmailRepository;
  files: AttachmentFileRepository;
  /** Where the files of a send for later are kept until it goes (the file storage, src/timesheets/storage.ts). */
  storage: FileStore;
  transactions: Transactions;
  audit: AuditService;
  sender: () => EmailSenderService;
  drafts: DraftKeeper & { removeInTx(userId: string, draftId: string, tx: Tx): Promise<number> };
}

export class ScheduledEmailService {
  constructor(private readonly deps: ScheduledEmailDeps) {}

  /** Where the files of a form with sendAt go: the file storage, recorded unowned until schedule() links them. */
  fileTarget(): UploadTarget {
    return keptFiles(this.deps.storage, this.deps.files);
  }

  /**
   * Keeps a send request for `sendAt`. `message` carries the origin found while the form arrived (its
   * files, if any, are already in the file storage: message.keepFiles); `fromDraft`: the server draft
   * being sent, whose files move to the scheduled email and which is removed.
   */
  async schedule(message: OutgoingMessage, body: ReplyBody | ComposeBody | ForwardBody, sendAt: Date, meta: RequestMeta, fromDraft?: string): Promise<ScheduledWithFiles> {
    const { origin, unsigned } = await this.deps.sender().prepareScheduled(message, body);
    const target = message.target;
    const kind: ScheduledKind = target.kind;
    // The template is rendered now: what goes out is what the caller saw accepted.
    const { templateId: _template, ...rest } = body as ComposeBody;
    const request: Record<string, unknown> = { ...rest, ...unsigned };
    if (kind !== 'reply') request.emailAccountId = origin.account.id;
    const files = origin.intake.attachments.map((a) => ({ storageKey: a.blobId, name: a.name, type: a.type, sha256: a.sha256 ?? '' }));
    const row = await this.deps.transactions.run(async (tx) => {
      const inserted = await this.deps.scheduled.insert(
        {
          userId: message.userId,
          emailAccountId: origin.account.id,
          kind,
          emailId: target.kind === 'new' ? null : target.emailId,
          request,
          sendAt,
          messageId: newMessageId(origin.account.email),
        },
        tx,
      );
      const owner: FileOwner = { scheduledEmailId: inserted.id };
      if (fromDraft) {
        await this.deps.files.move({ draftId: fromDraft }, owner, tx);
        await this.deps.drafts.removeInTx(message.userId, fromDraft, tx);
      }
      if (files.length > 0) await this.deps.files.link(files, owner, tx);
      await this.deps.audit.record(
        {
          action: AuditActions.emailScheduled,
          userId: message.userId,
          details: { scheduledEmailId: inserted.id, emailAccountId: origin.account.id, sendAt: sendAt.toISOString(), kind, ...(fromDraft ? { draftId: fromDraft } : {}) },
        },
        meta,
        tx,
      );
      return inserted;
    });
    return { ...row, attachments: await this.deps.files.of({ scheduledEmailId: row.id }) };
  }

  async list(userId: string, page: PageRequest, status?: ScheduledStatus): Promise<Page<ScheduledWithFiles>> {
    const found = await this.deps.scheduled.list(userId, page, status);
    const files =
      found.items.length > 0
        ? await this.deps.files.ofMany(
            'scheduled_email_id',
            found.items.map((i) => i.id),
          )
        : new Map<string, StoredFile[]>();
    return { items: found.items.map((i) => ({ ...i, attachments: files.get(i.id) ?? [] })), total: found.total };
  }

  async get(userId: string, id: string): Promise<ScheduledWithFiles> {
    const row = await this.deps.scheduled.find(userId, id);
    if (!row) throw new NotFoundError(SCHEDULED_NOT_FOUND);
    return { ...row, attachments: await this.deps.files.of({ scheduledEmailId: id }) };
  }

  /**
   * Cancels a send that has not started (409 once it is being sent, sent, failed or cancelled). What
   * was typed, and its files, become a server draft (`draftId`): nothing typed is lost by an undo.
   */
  async cancel(userId: string, id: string, meta: RequestMeta): Promise<ScheduledWithFiles> {
    const row = await this.deps.transactions.run(async (tx) => {
      const { cancelled, row: found } = await this.deps.scheduled.cancel(userId, id, tx);
      if (!found) throw new NotFoundError(SCHEDULED_NOT_FOUND);
      if (!cancelled) throw new ConflictError(ALREADY[found.status as Exclude<ScheduledStatus, 'scheduled'>], undefined, 'scheduled_email_not_cancellable');
      let draftId: string | null = null;
      if (found.emailAccountId) {
        draftId = await this.deps.drafts.keep(userId, keptDraftOf(found, found.emailAccountId), tx);
        await this.deps.files.move({ scheduledEmailId: id }, { draftId }, tx);
        await this.deps.scheduled.setDraft(id, draftId, tx);
      }
      await this.deps.audit.record({ action: AuditActions.scheduledEmailCancelled, userId, details: { scheduledEmailId: id, ...(draftId ? { draftId } : {}) } }, meta, tx);
      return { ...found, draftId };
    });
    return { ...row, attachments: [] };
  }
}
