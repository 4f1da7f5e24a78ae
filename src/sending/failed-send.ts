/**
 * Nothing typed is lost (issue 47): when the mail server refuses a send, or cannot be reached, or
 * the outcome is unknown, what was typed is kept as a server draft (src/drafts) and the error's
 * details name it: `{ draftId }`. A draft being sent (POST /api/drafts/{id}/send) is simply kept.
 */
import { AppError, type ErrorCode } from '../errors/app-errors.js';
import type { Logger } from '../logging/logger.js';
import type { Tx } from '../db/transactions.js';
import type { Recipient } from './compose.js';

export interface KeptDraft {
  emailAccountId: string;
  replyToEmailId?: string;
  to: Recipient[];
  cc: Recipient[];
  bcc: Recipient[];
  subject: string;
  text: string;
  html?: string;
}

/** Implemented by the drafts area (DraftService.keep): the sending area does not import it. */
export interface DraftKeeper {
  /** `tx`: made in the caller's transaction (a cancelled or failed scheduled send hands its files over with it). */
  keep(userId: string, draft: KeptDraft, tx?: Tx): Promise<string>;
}

/**
 * The mail server's failures whose details may carry a draftId. recipient_rejected is not among them:
 * its details name the refused addresses (FieldProblems), and the request itself must be corrected.
 */
export const KEEPS_DRAFT: readonly ErrorCode[] = ['submission_refused', 'upstream_unavailable', 'upstream_timeout', 'mail_quota_exceeded'];

/** The error to answer: the same code and message, with `{ draftId }` as details when a draft holds the text. */
export async function keepTyped(
  err: unknown,
  keeper: DraftKeeper | undefined,
  what: { userId: string; draftId?: string; draft: () => KeptDraft },
  logger: Logger,
): Promise<unknown> {
  if (!(err instanceof AppError) || !KEEPS_DRAFT.includes(err.code) || !keeper) return err;
  let draftId = what.draftId;
  if (draftId === undefined) {
    try {
      draftId = await keeper.keep(what.userId, what.draft());
    } catch (failure) {
      // The send's own error matters more than the draft's: answered without a draftId.
      logger.error('the text of a failed send could not be kept as a draft', { err: failure });
      return err;
    }
  }
  return new AppError(err.message, err.statusCode, { draftId }, err.headers, err.code);
}
