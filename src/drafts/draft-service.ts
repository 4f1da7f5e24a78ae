import type { RequestMeta } from '../audit/audit-service.js';
import type { Tx } from '../db/transactions.js';
import type { EmailAccountAccess } from '../email-accounts/account-access.js';
import type { EmailRecord } from '../emails/email-records.js';
import { NotFoundError, ValidationError } from '../errors/app-errors.js';
import type { Recipient } from '../sending/compose.js';
import type { EmailSenderService, OutgoingMessage, SendResult, SendTarget } from '../sending/email-sender-service.js';
import type { DraftKeeper, KeptDraft } from '../sending/failed-send.js';
import type { ComposeBody, ReplyBody } from '../sending/send-request.js';
import type { Page, PageRequest } from '../shared/pagination.js';
import type { DraftFields, DraftRecord, DraftRepository } from './draft-repository.js';

export const DRAFT_NOT_FOUND = 'Koncept neexistuje';
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

export interface DraftServiceDeps {
  drafts: DraftRepository;
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

  list(userId: string, page: PageRequest): Promise<Page<DraftRecord>> {
    return this.deps.drafts.list(userId, page);
  }

  async get(userId: string, id: string): Promise<DraftRecord> {
    const found = await this.deps.drafts.find(userId, id);
    if (!found) throw new NotFoundError(DRAFT_NOT_FOUND);
    return found;
  }

  async create(userId: string, input: DraftInput & { emailAccountId: string }): Promise<DraftRecord> {
    const fields = merged(undefined, input);
    await this.check(userId, fields);
    return this.deps.drafts.insert(userId, fields);
  }

  /** Autosave: one read and one write; the rights are asked again only when the mailbox or the email answered change. */
  async update(userId: string, id: string, changes: DraftInput): Promise<DraftRecord> {
    const current = await this.get(userId, id);
    const fields = merged(current, changes);
    if (fields.emailAccountId !== current.emailAccountId || fields.replyToEmailId !== current.replyToEmailId) await this.check(userId, fields);
    const updated = await this.deps.drafts.update(userId, id, fields);
    if (!updated) throw new NotFoundError(DRAFT_NOT_FOUND);
    return updated;
  }

  async remove(userId: string, id: string): Promise<void> {
    if ((await this.deps.drafts.remove(userId, id)) === 0) throw new NotFoundError(DRAFT_NOT_FOUND);
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
    const result = await this.deps.sender().send(message, bodyOf(draft, options), meta);
    await this.deps.drafts.remove(message.userId, draft.id);
    return result;
  }

  private async check(userId: string, fields: DraftFields): Promise<void> {
    await this.deps.accounts.sendingAccount(userId, fields.emailAccountId);
    if (fields.replyToEmailId === null) return;
    const email = await this.deps.emails.get(userId, fields.replyToEmailId);
    if (email.emailAccountId !== fields.emailAccountId) throw new ValidationError(OTHER_MAILBOX, [{ field: 'replyToEmailId', message: OTHER_MAILBOX }]);
  }
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
