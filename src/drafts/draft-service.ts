import type { RequestMeta } from '../audit/audit-service.js';
import type { Transactions, Tx } from '../db/transactions.js';
import type { EmailAccountAccess } from '../email-accounts/account-access.js';
import type { EmailRecord } from '../emails/email-records.js';
import { NotFoundError, ValidationError } from '../errors/app-errors.js';
import type { StoredFile } from '../sending/attachment-files.js';
import type { OutgoingAttachment, Recipient } from '../sending/compose.js';
import type { EmailSenderService, OutgoingMessage, SendResult, SendTarget } from '../sending/email-sender-service.js';
import type { DraftKeeper, KeptDraft } from '../sending/failed-send.js';
import type { ComposeBody, ReplyBody } from '../sending/send-request.js';
import type { Page, PageRequest } from '../shared/pagination.js';
import type { DraftFiles } from './draft-files.js';
import type { DraftFields, DraftRecord, DraftRepository } from './draft-repository.js';

export const DRAFT_NOT_FOUND = 'Koncept neexistuje';
export const DRAFT_FILE_NOT_FOUND = 'Príloha konceptu neexistuje';
const OTHER_MAILBOX = 'Email, na ktorý koncept odpovedá, patrí inému emailovému účtu';

export interface DraftInput {
  emailAccountId?: string;
  replyToEmailId?: string | null;
  to?: Recipient[];
  cc?: Recipient[];
  bcc?: Recipient[];
  subject?: string;
  text?: string;
  html?: string | null;
}

/** A draft with its files, in the order they were added. */
export interface DraftWithFiles extends DraftRecord {
  attachments: StoredFile[];
}

export interface DraftServiceDeps {
  drafts: DraftRepository;
  files: DraftFiles;
  transactions: Transactions;
  accounts: EmailAccountAccess;
  emails: { get(userId: string, emailId: string): Promise<EmailRecord> };
  /** The sender, asked for when a draft is sent (it keeps failed sends as drafts through this service). */
  sender: () => EmailSenderService;
}

/**
 * Drafts kept on the server (issue 47), private to their author: another user's draft id is a 404
 * like an unknown one. A draft is for a mailbox its author may send from (viewer: 403, not shared:
 * 404), and may answer an email of that mailbox. Sending one goes through the sender like any send
 * and removes the draft only once the mail server took it: a refusal keeps it.
 */
export class DraftService implements DraftKeeper {
  constructor(private readonly deps: DraftServiceDeps) {}

  async list(userId: string, page: PageRequest): Promise<Page<DraftWithFiles>> {
    const found = await this.deps.drafts.list(userId, page);
    const files = await this.deps.files.ofMany(found.items.map((d) => d.id));
    return { items: found.items.map((d) => ({ ...d, attachments: files.get(d.id) ?? [] })), total: found.total };
  }

  async get(userId: string, id: string): Promise<DraftWithFiles> {
    const found = await this.deps.drafts.find(userId, id);
    if (!found) throw new NotFoundError(DRAFT_NOT_FOUND);
    return { ...found, attachments: await this.deps.files.of(id) };
  }

  /** Where a draft form's files are written while it arrives (they are linked by create or update). */
  fileTarget() {
    return this.deps.files.target();
  }

  /**
   * What a draft form must pass before its first file is kept (issue 26's rule for forms): the draft
   * is the caller's, and the mailbox (and the email answered) one they may use. Answers the mailbox.
   */
  async checkForm(userId: string, id: string | undefined, input: DraftInput): Promise<string> {
    if (id === undefined) {
      const fields = merged(undefined, input);
      await this.check(userId, fields);
      return fields.emailAccountId;
    }
    const current = await this.get(userId, id);
    const fields = merged(current, input);
    if (changedTarget(current, fields)) await this.check(userId, fields);
    return fields.emailAccountId;
  }

  /** `kept`: files of the form, checked and written (unowned), linked in the draft's transaction. */
  async create(userId: string, input: DraftInput & { emailAccountId: string }, kept: OutgoingAttachment[] = []): Promise<DraftWithFiles> {
    const fields = merged(undefined, input);
    await this.check(userId, fields);
    return this.deps.transactions.run(async (tx) => {
      const draft = await this.deps.drafts.insert(userId, fields, tx);
      await this.deps.files.link(draft.id, kept, tx);
      return { ...draft, attachments: await this.deps.files.of(draft.id, tx) };
    });
  }

  /**
   * Autosave: one read and one write; the rights are asked again only when the mailbox or the email
   * answered change. With files, in one transaction holding the draft's row (their limits are the draft's).
   */
  async update(userId: string, id: string, changes: DraftInput, kept: OutgoingAttachment[] = []): Promise<DraftWithFiles> {
    if (kept.length === 0) {
      const current = await this.get(userId, id);
      const updated = await this.write(userId, current, changes);
      return { ...updated, attachments: current.attachments };
    }
    return this.deps.transactions.run(async (tx) => {
      const current = await this.deps.drafts.find(userId, id, tx, true);
      if (!current) throw new NotFoundError(DRAFT_NOT_FOUND);
      const updated = await this.write(userId, current, changes, tx);
      await this.deps.files.link(id, kept, tx);
      return { ...updated, attachments: await this.deps.files.of(id, tx) };
    });
  }

  async remove(userId: string, id: string): Promise<void> {
    if ((await this.deps.drafts.remove(userId, id)) === 0) throw new NotFoundError(DRAFT_NOT_FOUND);
  }

  /** Takes one file off a draft (the cleanup job removes it); another user's draft or file: 404. */
  async removeAttachment(userId: string, id: string, fileId: string): Promise<void> {
    await this.deps.transactions.run(async (tx) => {
      if (!(await this.deps.drafts.find(userId, id, tx, true))) throw new NotFoundError(DRAFT_NOT_FOUND);
      if (!(await this.deps.files.releaseOne(id, fileId, tx))) throw new NotFoundError(DRAFT_FILE_NOT_FOUND);
    });
  }

  /** The text of a send that failed, kept (DraftKeeper): the sender checked the rights already. */
  async keep(userId: string, draft: KeptDraft, tx?: Tx): Promise<string> {
    const saved = await this.deps.drafts.insert(userId, { ...draft, replyToEmailId: draft.replyToEmailId ?? null, html: draft.html ?? null }, tx);
    return saved.id;
  }

  /** Removes a draft in the caller's transaction (a draft scheduled: its text moved to the scheduled email). */
  removeInTx(userId: string, id: string, tx: Tx): Promise<number> {
    return this.deps.drafts.remove(userId, id, tx);
  }

  targetOf(draft: DraftRecord): SendTarget {
    return draft.replyToEmailId ? { kind: 'reply', emailId: draft.replyToEmailId } : { kind: 'new' };
  }

  /** The send request the draft stands for (what a scheduled send of it keeps). */
  requestOf(draft: DraftRecord, options: { signature?: boolean }): ReplyBody | ComposeBody {
    return bodyOf(draft, options);
  }

  /** Sends the draft (`message` targets it: targetOf) and removes it once sent; any failure leaves it as it was. */
  async send(message: OutgoingMessage, draft: DraftRecord, options: { signature?: boolean }, meta: RequestMeta): Promise<SendResult> {
    const result = await this.deps.sender().send(message, bodyOf(draft, options), meta, this.deps.files.feeder(draft.id));
    // Its files are let go with it (draft_id set null): the cleanup job removes them.
    await this.deps.drafts.remove(message.userId, draft.id);
    return result;
  }

  private async write(userId: string, current: DraftRecord, changes: DraftInput, tx?: Tx): Promise<DraftRecord> {
    const fields = merged(current, changes);
    if (changedTarget(current, fields)) await this.check(userId, fields);
    const updated = await this.deps.drafts.update(userId, current.id, fields, tx);
    if (!updated) throw new NotFoundError(DRAFT_NOT_FOUND);
    return updated;
  }

  private async check(userId: string, fields: DraftFields): Promise<void> {
    await this.deps.accounts.sendingAccount(userId, fields.emailAccountId);
    if (fields.replyToEmailId === null) return;
    const email = await this.deps.emails.get(userId, fields.replyToEmailId);
    if (email.emailAccountId !== fields.emailAccountId) throw new ValidationError(OTHER_MAILBOX, [{ field: 'replyToEmailId', message: OTHER_MAILBOX }]);
  }
}

function changedTarget(current: DraftFields, fields: DraftFields): boolean {
  return fields.emailAccountId !== current.emailAccountId || fields.replyToEmailId !== current.replyToEmailId;
}

function merged(current: DraftFields | undefined, changes: DraftInput): DraftFields {
  const pick = <K extends keyof DraftFields>(key: K, fallback: DraftFields[K]): DraftFields[K] =>
    changes[key] !== undefined ? (changes[key] as DraftFields[K]) : current ? current[key] : fallback;
  return {
    emailAccountId: changes.emailAccountId ?? current!.emailAccountId,
    replyToEmailId: pick('replyToEmailId', null),
    to: pick('to', []),
    cc: pick('cc', []),
    bcc: pick('bcc', []),
    subject: pick('subject', ''),
    text: pick('text', ''),
    html: pick('html', null),
  };
}

/** The send request a draft stands for: a reply takes its defaults (recipients, "Re:") where the draft left them empty. */
function bodyOf(d: DraftRecord, options: { signature?: boolean }): ReplyBody | ComposeBody {
  const common = {
    text: d.text,
    ...(d.html !== null ? { html: d.html } : {}),
    ...(options.signature !== undefined ? { signature: options.signature } : {}),
    ...(d.cc.length > 0 ? { cc: d.cc } : {}),
    ...(d.bcc.length > 0 ? { bcc: d.bcc } : {}),
  };
  if (d.replyToEmailId) return { ...common, ...(d.to.length > 0 ? { to: d.to } : {}), ...(d.subject !== '' ? { subject: d.subject } : {}) };
  return { ...common, emailAccountId: d.emailAccountId, to: d.to, subject: d.subject };
}
