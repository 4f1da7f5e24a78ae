/**
 * The scheduled-sends job of every serve (src/app/background-jobs.ts, every second; docs/adr/0146-scheduled-send.md).
 * It leases due rows (SKIP LOCKED, a lease renewed while it works), checks that the sender may still
 * send (not disabled, the send right on the mailbox), and sends through the sender service with a
 * submission in two steps: the message is created in Drafts and its id recorded, then submitted. A
 * holder that died leaves a row whose lease runs out; the next attempt asks the mail server about
 * the recorded message first, so a message that went is recorded as sent, never sent again.
 */
import type { AuditService } from '../audit/audit-service.js';
import { AuditActions } from '../audit/audit-service.js';
import type { Transactions } from '../db/transactions.js';
import { AppError } from '../errors/app-errors.js';
import { createDraft, submissionState, submitDraft } from '../jmap/index.js';
import type { Logger } from '../logging/logger.js';
import type { AttachmentFileRepository } from '../sending/attachment-files.js';
import type { FileStore } from '../storage/file-storage.js';
import type { EmailSenderService, ScheduledSubmission } from '../sending/email-sender-service.js';
import type { DraftKeeper } from '../sending/failed-send.js';
import { EMAIL_GET_ARGS } from '../sync/jmap-sync-calls.js';
import { keptDraftOf } from './scheduled-draft.js';
import type { AttemptEnd, ScheduledEmailRepository, ScheduledRecord } from './scheduled-email-repository.js';
import { reasons } from './scheduled-reasons.js';

/** Longer than one JMAP request (JMAP_TIMEOUT_MS, 15 s by default); renewed every third of it while an attempt works. */
export const SEND_LEASE_SECONDS = 30;
/** Sends one instance has under way at once. */
const CONCURRENCY = 10;
/** Waits before the next attempt when nothing went (the mail server unreachable); then it fails. */
const RETRY_SECONDS = [30, 60, 300, 900, 3600];
/** A submission asked for this recently and not seen yet may still be under way at the mail server. */
const SUBMISSION_SETTLE_SECONDS = 600;
/** Finished rows (sent, failed, cancelled) are listed this long. */
const KEEP_FINISHED_DAYS = 30;

/** This attempt no longer holds its row (its lease ran out and another took it over): it stops, sending nothing. */
class LeaseLost extends Error {}
/** The mail server may still be working on the submission asked for: look again later, never submit twice. */
class SubmissionUnsettled extends Error {}

export interface ScheduledSendDeps {
  scheduled: ScheduledEmailRepository;
  files: AttachmentFileRepository;
  storage: FileStore;
  transactions: Transactions;
  sender: EmailSenderService;
  drafts: DraftKeeper;
  audit: AuditService;
  logger?: Logger;
}

export class ScheduledSendJob {
  private inFlight = 0;
  private prunedAt = 0;
  private stopping = false;

  constructor(private readonly deps: ScheduledSendDeps) {}

  /**
   * Claims as many due rows as this instance has room for and sends them; answers once they ended.
   * Each slot claims its next due row as soon as its send ends, not at the next tick (a second later):
   * a backlog (1,000 emails due in the same second) keeps every slot busy until it is gone.
   */
  async run(): Promise<{ done: number; failed: number }> {
    if (Date.now() - this.prunedAt > 3_600_000) {
      this.prunedAt = Date.now();
      await this.deps.scheduled.pruneFinished(KEEP_FINISHED_DAYS);
    }
    const room = CONCURRENCY - this.inFlight;
    if (room <= 0 || this.stopping) return { done: 0, failed: 0 };
    const rows = await this.deps.scheduled.claimDue(room, SEND_LEASE_SECONDS);
    const slots = await Promise.all(rows.map((row) => this.slot(row)));
    return { done: slots.reduce((n, s) => n + s.done, 0), failed: slots.reduce((n, s) => n + s.failed, 0) };
  }

  /** At shutdown: no slot claims another row; the sends under way end (the runner waits for them). */
  async stop(): Promise<void> {
    this.stopping = true;
  }

  /** One slot: the row, then the next due ones one by one while there are any. */
  private async slot(first: ScheduledRecord): Promise<{ done: number; failed: number }> {
    const counts = { done: 0, failed: 0 };
    this.inFlight++;
    try {
      for (let row: ScheduledRecord | undefined = first; row; row = await this.nextDue()) {
        if ((await this.attempt(row)) === 'sent') counts.done++;
        else counts.failed++;
      }
    } finally {
      this.inFlight--;
    }
    return counts;
  }

  /** The next due row for a slot that just ended a send; none at shutdown or when the claim fails (the next tick claims again). */
  private async nextDue(): Promise<ScheduledRecord | undefined> {
    if (this.stopping) return undefined;
    try {
      return (await this.deps.scheduled.claimDue(1, SEND_LEASE_SECONDS))[0];
    } catch (err) {
      this.deps.logger?.warn('scheduled sends: the next claim failed; the next tick claims again', { err });
      return undefined;
    }
  }

  backlog() {
    return this.deps.scheduled.backlog();
  }

  /** One attempt at one leased row; never throws. */
  private async attempt(row: ScheduledRecord): Promise<AttemptEnd['status'] | 'lost'> {
    const renew = setInterval(
      () => {
        this.deps.scheduled.renew(row.id, row.attempts, SEND_LEASE_SECONDS).catch(() => undefined);
      },
      (SEND_LEASE_SECONDS * 1000) / 3,
    );
    try {
      const end = await this.outcome(row);
      if (!end) return 'lost';
      await this.finish(row, end);
      return end.status;
    } catch (err) {
      this.deps.logger?.error('scheduled send could not be recorded; its lease runs out and it is checked again', { scheduledEmailId: row.id, err });
      return 'lost';
    } finally {
      clearInterval(renew);
    }
  }

  /** What the attempt came to; undefined when it lost its row. */
  private async outcome(row: ScheduledRecord): Promise<AttemptEnd | undefined> {
    const refused = await this.refusal(row);
    if (refused) return refused;
    const message = this.deps.sender.start(row.userId, row.kind === 'new' ? { kind: 'new' } : { kind: row.kind, emailId: row.emailId! });
    try {
      const result = await this.deps.sender.sendScheduled(message, row.request, { actor: 'scheduler' }, this.submission(row));
      return { status: 'sent', sentEmailId: result.email?.id ?? null };
    } catch (err) {
      return this.failure(row, err, message.outcome);
    }
  }

  /** What a failed attempt means: lost row, look again later, try again later, or failed for good. */
  private failure(row: ScheduledRecord, err: unknown, outcome: 'nothing' | 'unknown' | 'sent'): AttemptEnd | undefined {
    if (err instanceof LeaseLost) return undefined;
    const next = (seconds: number) => new Date(Date.now() + seconds * 1000);
    if (err instanceof SubmissionUnsettled) return { status: 'sending', next: next(SEND_LEASE_SECONDS), ...reasons.unsettled };
    // It may have gone (the answer to the submission was lost): a recovery asks the mail server.
    if (outcome !== 'nothing') return { status: 'sending', next: next(SEND_LEASE_SECONDS), ...reasons.unknown };
    if (err instanceof AppError && err.statusCode >= 500 && err.code !== 'submission_refused' && err.code !== 'mail_quota_exceeded') {
      const wait = RETRY_SECONDS[row.attempts - 1];
      if (wait !== undefined) return { status: 'scheduled', next: next(wait), code: err.code, message: err.message };
    }
    if (err instanceof AppError) return { status: 'failed', code: err.code, message: err.message, draftId: null };
    this.deps.logger?.error('scheduled send failed', { scheduledEmailId: row.id, err });
    return { status: 'failed', ...reasons.internal, draftId: null };
  }

  /** Why the row may not go at all any more (checked first, at every attempt); undefined when it may. */
  private async refusal(row: ScheduledRecord): Promise<AttemptEnd | undefined> {
    if (!row.emailAccountId) return { status: 'failed', ...reasons.accountRemoved, draftId: null };
    if (await this.deps.scheduled.userDisabled(row.userId)) return { status: 'failed', ...reasons.userDisabled, draftId: null };
    try {
      await this.deps.sender.mayStillSend(row.userId, row.emailAccountId);
    } catch (err) {
      if (err instanceof AppError && (err.statusCode === 403 || err.statusCode === 404)) return { status: 'failed', ...reasons.sendRightLost, draftId: null };
      throw err;
    }
    return undefined;
  }

  /** The scheduled row's side of the send: its Message-ID, its files, its two-step submission. */
  private submission(row: ScheduledRecord): ScheduledSubmission {
    const { scheduled, files, storage } = this.deps;
    return {
      scheduledEmailId: row.id,
      messageId: row.messageId,
      attach: async (intake) => {
        for (const file of await files.of({ scheduledEmailId: row.id })) {
          const opened = await storage.get(file.storageKey);
          await intake.add(opened.stream, file.name, file.type);
        }
      },
      submit: async (client, accountId, setup, { draft, envelope }) => {
        let emailId = row.jmapEmailId;
        if (emailId) {
          const now = await submissionState(client, accountId, setup, emailId, EMAIL_GET_ARGS);
          if (now.state === 'sent') return { ok: true, emailId, submissionId: now.submissionId ?? '', email: now.email };
          if (now.state === 'gone') emailId = null;
          else if (row.submittedAt && Date.now() - row.submittedAt.getTime() < SUBMISSION_SETTLE_SECONDS * 1000) throw new SubmissionUnsettled();
        }
        if (!emailId) {
          const created = await createDraft(client, accountId, setup, draft);
          if (!created.ok) return created;
          if (!(await scheduled.recordJmapEmail(row.id, row.attempts, created.emailId, SEND_LEASE_SECONDS))) throw new LeaseLost();
          emailId = created.emailId;
        }
        if (!(await scheduled.markSubmitting(row.id, row.attempts, SEND_LEASE_SECONDS))) throw new LeaseLost();
        return submitDraft(client, accountId, setup, { emailId, envelope }, EMAIL_GET_ARGS);
      },
    };
  }

  /**
   * Records the end, fenced by the attempt: a sent or failed row lets go of its files (the cleanup job
   * removes them); a failed one keeps its text and files as a draft and is audited with its reason.
   */
  private async finish(row: ScheduledRecord, end: AttemptEnd): Promise<void> {
    const { scheduled, files, transactions, drafts, audit } = this.deps;
    await transactions
      .run(async (tx) => {
        let recorded = end;
        if (end.status === 'failed' && row.emailAccountId && !(await scheduled.userDisabled(row.userId))) {
          const draftId = await drafts.keep(row.userId, keptDraftOf(row, row.emailAccountId), tx);
          await files.move({ scheduledEmailId: row.id }, { draftId }, tx);
          recorded = { ...end, draftId };
        }
        if (!(await scheduled.end(row.id, row.attempts, recorded, tx))) {
          // Another attempt took the row over meanwhile: nothing of this one is kept.
          throw new LeaseLost();
        }
        if (end.status === 'sent' || end.status === 'failed') await files.release({ scheduledEmailId: row.id }, tx);
        if (end.status === 'failed') {
          await audit.record({ action: AuditActions.scheduledEmailFailed, userId: row.userId, details: { scheduledEmailId: row.id, code: end.code } }, { actor: 'scheduler' }, tx);
        }
      })
      .catch((err: unknown) => {
        if (!(err instanceof LeaseLost)) throw err;
      });
    if (end.status !== 'sent') this.deps.logger?.info('scheduled send not sent', { scheduledEmailId: row.id, status: end.status, code: end.code });
  }
}
