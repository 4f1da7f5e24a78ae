/**
 * Sending from the CRM (docs/contract.md §4.5): a reply to a synced email or a new
 * message, from an account the caller may send from, through JMAP (draft + submission + move to Sent
 * in one request). The sent message is written into the CRM at once from the server's answer, so it
 * shows in the contact's thread immediately and the next sync only refreshes it.
 */
import type { Readable } from 'node:stream';
import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import type { ContactService } from '../contacts/contact-service.js';
import type { PersonService } from '../people/person-service.js';
import type { EmailAccountAccess } from '../email-accounts/account-access.js';
import type { EmailRecord } from '../emails/email-records.js';
import type { EmailService } from '../emails/email-service.js';
import { AuthenticationError, ForbiddenError, NotFoundError, ValidationError } from '../errors/app-errors.js';
import { createAndSubmit, JmapError, JmapProtocolError, prepareSend, type Email, type JmapClient, type SendSetup, type SubmitOutcome } from '../jmap/index.js';
import type { Logger } from '../logging/logger.js';
import type { EmailAccount } from '../models/index.js';
import { EMAIL_GET_ARGS } from '../sync/jmap-sync-calls.js';
import type { SentEmailWriter } from '../sync/sent-email-writer.js';
import { draftEmail, envelopeOf, forwardSubject, newMessageId, pick, replyRecipients, replySubject, type Recipient, type Recipients } from './compose.js';
import { withForwardQuote } from './forwarding.js';
import type { RequestContent, SendIdempotency, StoredResponse } from './idempotency.js';
import { defaultRecipient, OutgoingMessage, type SendCaller, type SendOrigin, type SendTarget } from './outgoing-message.js';
import { SendOrigins } from './send-origins.js';
import { messageContent, type ContentSources, type MessageContent } from './message-content.js';
import { keepTyped, type DraftKeeper } from './failed-send.js';
import { emailRefused, mailServerError, outcomeUnknown, submissionRefused } from './send-errors.js';
import type { SendThrottle, UploadBudget } from './send-throttle.js';
import { MAX_RECIPIENTS, TOO_MANY_RECIPIENTS, type ComposeBody, type ForwardBody, type ReplyBody } from './send-request.js';

type SendBody = ReplyBody | ComposeBody | ForwardBody;

/**
 * How a scheduled send differs from one sent at once (src/scheduled-emails): the Message-ID fixed
 * when it was scheduled, its stored attachments, and a submission in two steps that a recovery can
 * check (docs/adr/0146-scheduled-send.md).
 */
export interface ScheduledSubmission {
  scheduledEmailId: string;
  messageId: string;
  /** Puts the stored attachments into the intake (uploads them to the mail server). */
  attach(intake: SendOrigin['intake']): Promise<void>;
  submit(client: JmapClient, jmapAccountId: string, setup: SendSetup, message: { draft: Record<string, unknown>; envelope: Envelope }): Promise<SubmitOutcome>;
}

export { OutgoingMessage, type SendTarget } from './outgoing-message.js';

export interface SendResult {
  /** The email as the CRM now lists it; null when it is filed under nobody (all recipients deleted contacts or robots). */
  email: EmailRecord | null;
  messageId: string;
  emailAccountId: string;
  recipients: number;
}

export interface EmailSenderDeps {
  accounts: EmailAccountAccess;
  emails: EmailService;
  contacts: ContactService;
  /** A person written to (compose with personId). */
  people: Pick<PersonService, 'get'>;
  mail: { clientFor(account: EmailAccount): JmapClient };
  sentWriter: SentEmailWriter;
  throttle: SendThrottle;
  idempotency: SendIdempotency;
  audit: AuditService;
  logger: Logger;
  /** SEND_MAX_TOTAL_BYTES: all attachments of one email. */
  maxTotalBytes: number;
  uploadBudget: UploadBudget;
  /** Checks the caller's session again right before the submission. */
  sessions?: { activeSession(sessionId: string, userId: string): Promise<unknown> };
  /** Checks the caller's API token again right before the submission (revoked, expired, user disabled). */
  apiTokens?: { stillUsable(tokenId: string, userId: string): Promise<boolean> };
  /** Signatures and templates (issue 47). */
  content: ContentSources;
  /** Keeps the text of a send that failed as a server draft (src/drafts). */
  drafts?: DraftKeeper;
}

const NO_RECIPIENTS = 'Zadajte aspoň jedného adresáta';

/** The audit record of a send: its details, who sent, and the request. */
interface SendAudit {
  details: Record<string, unknown>;
  userId: string;
  meta: RequestMeta;
}

export class EmailSenderService {
  private readonly origins: SendOrigins;

  constructor(private readonly deps: EmailSenderDeps) {
    this.origins = new SendOrigins(deps);
  }

  /** `caller`: the session or API token of the request (checked again before the submission); none for the scheduler. */
  start(userId: string, target: SendTarget, signal?: AbortSignal, caller: SendCaller = {}): OutgoingMessage {
    return new OutgoingMessage(userId, target, signal, caller);
  }

  /**
   * Runs one send with its guards: the per-user rate limit (a send that sent nothing and uploaded
   * nothing gives its point back; uploaded bytes are counted by the upload budget as well) and, with an Idempotency-Key, at most one send per key (src/sending/idempotency.ts).
   */
  async guarded(
    message: OutgoingMessage,
    key: string | undefined,
    fingerprint: string,
    work: () => Promise<{ status: number; body: unknown }>,
    content?: RequestContent,
  ): Promise<StoredResponse> {
    const { throttle, idempotency } = this.deps;
    const attempt = async () => {
      await throttle.take(message.userId);
      try {
        return await work();
      } catch (err) {
        if (message.outcome === 'nothing' && message.uploadedBytes === 0) await throttle.giveBack(message.userId).catch(() => undefined);
        throw err;
      }
    };
    if (key === undefined) return { ...(await attempt()), replayed: false };
    return idempotency.run({ userId: message.userId, key, fingerprint, content }, attempt, () => message.outcome);
  }

  /**
   * Uploads one attachment while the form is still arriving. `body` is the whole form's text fields,
   * already validated (they come before the files): nothing goes to the mail server for a form that
   * would be refused anyway (issue 26).
   */
  async attach(message: OutgoingMessage, body: SendBody, stream: Readable, fileName: string, type: string): Promise<{ blobId: string; size: number }> {
    const first = !message.origin;
    const origin = await this.origins.of(message, body);
    if (first) precheckRecipients(origin, body);
    try {
      return await origin.intake.add(stream, fileName, type);
    } catch (err) {
      throw mailServerError(err);
    }
  }

  /**
   * Checks and keeps one file of a server draft (src/drafts) while its form arrives: `message` has
   * keepFiles set (the file storage) and stands for the draft's mailbox, which the caller may send
   * from; the checks are those of a send's files (content, the CRM's size limit, the upload budget).
   */
  async keep(message: OutgoingMessage, emailAccountId: string, stream: Readable, fileName: string, type: string): Promise<{ blobId: string; size: number }> {
    const origin = await this.origins.of(message, { emailAccountId });
    return origin.intake.add(stream, fileName, type);
  }

  /** `files`: puts stored files into the intake once the recipients are known to be fine (a server draft's attachments). */
  async send(message: OutgoingMessage, body: SendBody, meta: RequestMeta, files?: (intake: SendOrigin['intake']) => Promise<void>): Promise<SendResult> {
    const origin = await this.origins.of(message, body);
    const { account } = origin;
    // Before the mail server is asked anything: a template the caller may not use fails first.
    const content = await messageContent(this.deps.content, message.userId, account.id, body);
    try {
      return await this.deliver(message, origin, { body, content, meta, files });
    } catch (err) {
      throw await keepTyped(err, this.deps.drafts, { userId: message.userId, draftId: message.draftId, draft: () => keptDraft(origin, body, content) }, this.deps.logger);
    }
  }

  /**
   * What scheduling a send checks at once (src/scheduled-emails): the mailbox and the right to send
   * from it, the email answered or forwarded, the contact, the template (rendered now, so a bad one is
   * a 400 now) and the recipients as far as they can be told without the mail server. Answers the
   * origin and the content before the signature (the signature is added when it goes).
   */
  async prepareScheduled(message: OutgoingMessage, body: SendBody): Promise<{ origin: SendOrigin; unsigned: MessageContent['unsigned'] }> {
    const first = !message.origin;
    const origin = await this.origins.of(message, body);
    if (first) precheckRecipients(origin, body);
    const content = await messageContent(this.deps.content, message.userId, origin.account.id, body);
    return { origin, unsigned: content.unsigned };
  }

  /** Whether the user may send from the account now (a 403 or 404 when not): a scheduled send asks first. */
  async mayStillSend(userId: string, accountId: string): Promise<void> {
    await this.deps.accounts.sendingAccount(userId, accountId);
  }

  /**
   * A scheduled send at its time, by the scheduled-sends job: the rights again (a lost right is a
   * 403 or 404 here), the stored attachments, the signature as it is now, and the two-step submission
   * of `scheduled`. A failure is thrown as it is: the job decides what it means (no draft is made here).
   */
  async sendScheduled(message: OutgoingMessage, body: SendBody, meta: RequestMeta, scheduled: ScheduledSubmission): Promise<SendResult> {
    const origin = await this.origins.of(message, body);
    const content = await messageContent(this.deps.content, message.userId, origin.account.id, body);
    try {
      await scheduled.attach(origin.intake);
    } catch (err) {
      throw err instanceof JmapError ? mailServerError(err) : err;
    }
    return this.deliver(message, origin, { body, content, meta }, scheduled);
  }

  private async deliver(
    message: OutgoingMessage,
    origin: SendOrigin,
    { body, content, meta, files }: { body: SendBody; content: MessageContent; meta: RequestMeta; files?: (intake: SendOrigin['intake']) => Promise<void> },
    scheduled?: ScheduledSubmission,
  ): Promise<SendResult> {
    const { account } = origin;
    const setup = await prepare(origin);
    const final = origin.forwarded ? { ...content, ...withForwardQuote(content, origin.forwarded) } : content;
    const own = new Set([account.email, account.jmapAccountId, setup.identity.email].map((a) => a.toLowerCase()));
    const recipients = this.recipients(origin, setup, body, own);
    // After the recipients are known to be fine: no attachment byte moves for a send that would be refused.
    if (origin.forwarded) await this.origins.carry(message, origin);
    if (files) {
      try {
        await files(origin.intake);
      } catch (err) {
        throw mailServerError(err);
      }
    }
    const messageId = scheduled?.messageId ?? newMessageId(setup.identity.email);
    const draft = draftEmail({
      ...recipients,
      from: setup.identity.name ? { email: setup.identity.email, name: setup.identity.name } : { email: setup.identity.email },
      subject: subjectOf(origin, setup, content),
      text: final.text,
      html: final.html,
      original: originalOf(origin, setup),
      attachments: origin.intake.attachments,
      messageId,
      sentAt: new Date(),
    });
    const envelope = envelopeOf(setup.identity.email, recipients);

    // The right was checked when the send began, possibly minutes ago (a long upload): a member
    // removed or signed out since must not send from the account (issue 26).
    await this.stillAllowed(message, account);
    const sent = await this.submit(message, origin, setup, { draft, envelope }, scheduled);
    const details = {
      ...(scheduled ? { scheduledEmailId: scheduled.scheduledEmailId } : {}),
      emailAccountId: account.id,
      recipients: envelope.rcptTo.length,
      messageId,
      attachments: origin.intake.attachments.length,
      ...(origin.original ? { inReplyTo: origin.original.id } : {}),
      ...(origin.forwarded ? { forwarded: origin.forwarded.id } : {}),
    };
    const emailId = await this.record({ account, email: sent && withSentText(sent, final.text), setup, own }, { details, userId: message.userId, meta });
    return {
      email: emailId ? await this.readable(message.userId, emailId) : null,
      messageId,
      emailAccountId: account.id,
      recipients: envelope.rcptTo.length,
    };
  }

  /**
   * Draft, submission and move to Sent in one JMAP request; records on `message` whether anything may
   * have gone out (the guards give the rate-limit point back only when nothing did). Answers the sent
   * email as the server returned it (absent when it did not).
   */
  private async submit(
    message: OutgoingMessage,
    origin: SendOrigin,
    setup: SendSetup,
    { draft, envelope }: { draft: EmailDraft; envelope: Envelope },
    scheduled?: ScheduledSubmission,
  ): Promise<Email | undefined> {
    const { account, client } = origin;
    message.outcome = 'unknown';
    let outcome;
    try {
      outcome = scheduled
        ? await scheduled.submit(client, account.jmapAccountId, setup, { draft, envelope })
        : await createAndSubmit(client, account.jmapAccountId, setup, { draft, envelope }, EMAIL_GET_ARGS);
    } catch (err) {
      // A request the server rejected as a whole (HTTP 4xx) ran nothing; anything else may have sent.
      if (err instanceof JmapProtocolError && err.status !== undefined && err.status < 500) {
        message.outcome = 'nothing';
        throw mailServerError(err);
      }
      throw err instanceof JmapError ? outcomeUnknown(err) : err;
    }
    if (!outcome.ok) {
      message.outcome = 'nothing';
      const draftLeft = outcome.stage === 'submission' && outcome.draftLeft;
      this.deps.logger.warn('mail server refused a message', { emailAccountId: account.id, stage: outcome.stage, error: outcome.error, draftLeft });
      throw outcome.stage === 'email' ? emailRefused(outcome.error) : submissionRefused(outcome.error, envelope);
    }
    message.outcome = 'sent';
    return outcome.email;
  }

  /** The sent email into the CRM with its audit record; a failure here must not turn a sent email into an error. */
  private async record(sent: { account: EmailAccount; email: Email | undefined; setup: SendSetup; own: Set<string> }, audited: SendAudit): Promise<string | null> {
    const { account, email, setup, own } = sent;
    const { details, userId, meta } = audited;
    const entry = { action: AuditActions.emailSend, userId };
    if (!email) {
      await this.deps.audit.record({ ...entry, details }, meta);
      return null;
    }
    try {
      return await this.deps.sentWriter.record(
        { id: account.id, userId: account.userId, ownAddresses: [...own] },
        email,
        { sentId: setup.sentId, excludedIds: setup.excludedIds },
        (emailId, tx) => this.deps.audit.record({ ...entry, details: { ...details, emailId } }, meta, tx),
      );
    } catch (err) {
      this.deps.logger.error('sent email could not be recorded; the next sync brings it', { err, emailAccountId: account.id });
      await this.deps.audit.record({ ...entry, details }, meta);
      return null;
    }
  }

  private recipients(origin: SendOrigin, setup: SendSetup, body: SendBody, own: Set<string>): Recipients {
    let computed: Recipients = { to: [], cc: [], bcc: [] };
    if (origin.original) {
      const replyAll = 'replyAll' in body && body.replyAll === true;
      computed = setup.original ? replyRecipients(setup.original, own, replyAll) : { to: origin.contact ? [{ email: origin.contact.email }] : [], cc: [], bcc: [] };
    } else {
      const to = defaultRecipient(origin);
      if (to) computed.to = [to];
    }
    const seen = new Set<string>();
    const list = (given: Recipient[] | undefined, fallback: Recipient[]) => pick(given ?? fallback, seen);
    const recipients = { to: list(body.to, computed.to), cc: list(body.cc, computed.cc), bcc: list(body.bcc, []) };
    const count = recipients.to.length + recipients.cc.length + recipients.bcc.length;
    if (count === 0) throw new ValidationError(NO_RECIPIENTS, [{ field: 'to', message: NO_RECIPIENTS }]);
    if (count > MAX_RECIPIENTS) throw new ValidationError(TOO_MANY_RECIPIENTS, [{ field: 'to', message: TOO_MANY_RECIPIENTS }]);
    return recipients;
  }

  /** The send right, and the session or API token the request came with, once more, right before the submission. */
  private async stillAllowed(message: OutgoingMessage, account: EmailAccount): Promise<void> {
    const { sessionId, apiTokenId } = message.caller;
    if (sessionId !== undefined && this.deps.sessions) {
      const user = await this.deps.sessions.activeSession(sessionId, message.userId);
      if (!user) throw new AuthenticationError();
    }
    if (apiTokenId !== undefined && this.deps.apiTokens && !(await this.deps.apiTokens.stillUsable(apiTokenId, message.userId))) {
      throw new AuthenticationError();
    }
    await this.deps.accounts.sendingAccount(message.userId, account.id);
  }

  /**
   * The sent email as the sender may see it: a member who may send but not read (canRead false) gets
   * null, not a 403 after the message went out (a retry with a new key would send it twice).
   */
  private async readable(userId: string, emailId: string): Promise<EmailRecord | null> {
    try {
      return await this.deps.emails.get(userId, emailId);
    } catch (err) {
      if (err instanceof ForbiddenError || err instanceof NotFoundError) return null;
      throw err;
    }
  }
}

/** What a draft keeps of a failed send: the typed recipients and text (the signature comes again at its send). */
function keptDraft(origin: SendOrigin, body: SendBody, content: MessageContent) {
  const given = (list: Recipient[] | undefined, fallback: Recipient[] = []) => list ?? fallback;
  const to = origin.original ? undefined : defaultRecipient(origin);
  const contactTo = to ? [to] : [];
  return {
    emailAccountId: origin.account.id,
    ...(origin.original ? { replyToEmailId: origin.original.id } : {}),
    to: given(body.to, contactTo),
    cc: given(body.cc),
    bcc: given(body.bcc),
    subject: content.unsigned.subject ?? '',
    text: content.unsigned.text,
    ...(content.unsigned.html !== undefined ? { html: content.unsigned.html } : {}),
  };
}

type EmailDraft = ReturnType<typeof draftEmail>;
type Envelope = ReturnType<typeof envelopeOf>;

/** The identity, the Sent and Drafts mailboxes and the original of a reply, from the mail server. */
async function prepare(origin: SendOrigin): Promise<SendSetup> {
  try {
    return await prepareSend(origin.client, origin.account.jmapAccountId, origin.account.email, origin.original?.jmapId);
  } catch (err) {
    throw mailServerError(err);
  }
}

/** The subject given, else "Re: " the original's (as the mail server has it, else as synced), else none. */
function subjectOf(origin: SendOrigin, setup: SendSetup, body: { subject?: string }): string {
  if (body.subject !== undefined) return body.subject;
  if (origin.forwarded) return forwardSubject(origin.forwarded.subject);
  if (!origin.original) return '';
  return replySubject(setup.original?.subject ?? origin.original.subject);
}

/** What a reply threads under: the original as the mail server has it, else its Message-ID as synced. */
function originalOf(origin: SendOrigin, setup: SendSetup) {
  if (setup.original) return setup.original;
  if (!origin.original) return undefined;
  return { messageId: origin.original.messageId ? [origin.original.messageId] : null };
}

/**
 * What can be told about the recipients before the first attachment goes out: too many given, or
 * none at all for a new message without a contact (a reply and a contact supply their own).
 */
function precheckRecipients(origin: SendOrigin, body: SendBody): void {
  const given = (body.to?.length ?? 0) + (body.cc?.length ?? 0) + (body.bcc?.length ?? 0);
  if (given > MAX_RECIPIENTS) throw new ValidationError(TOO_MANY_RECIPIENTS, [{ field: 'to', message: TOO_MANY_RECIPIENTS }]);
  if (given === 0 && !origin.original && !defaultRecipient(origin)) throw new ValidationError(NO_RECIPIENTS, [{ field: 'to', message: NO_RECIPIENTS }]);
}

/**
 * Cyrus answers an Email/get by creation id (`#d1`) without body values, whatever fetchTextBodyValues
 * says: the text part's value is the text we sent, so it is filled in from there.
 */
function withSentText(email: Email, text: string): Email {
  const values = { ...(email.bodyValues ?? {}) };
  for (const part of email.textBody ?? []) {
    if (part.partId && !values[part.partId] && (part.type ?? '').toLowerCase() === 'text/plain') {
      values[part.partId] = { value: text, isEncodingProblem: false, isTruncated: false };
    }
  }
  return { ...email, bodyValues: values };
}
