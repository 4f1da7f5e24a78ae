import { AppError, ConflictError, type ErrorCode } from '../errors/app-errors.js';
import type { IdempotencyRepository, IdempotencyRow } from './idempotency-repository.js';

/** docs/contract.md §4.5: the same Idempotency-Key within 24 h answers the first result without sending again. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

export interface StoredResponse {
  status: number;
  body: unknown;
  /** True when this is the first request's answer, given again. */
  replayed: boolean;
}

/**
 * What a send's outcome means for its key: `sent` (stored and answered again to retries), `nothing`
 * (nothing left the CRM: the key is free for a retry) or `unknown` (the mail server may have sent it:
 * the key stays taken, so a retry can never send twice).
 */
export type SendOutcome = 'sent' | 'nothing' | 'unknown';

const IN_PROGRESS = 'Požiadavka s týmto kľúčom (Idempotency-Key) sa ešte spracúva; skontrolujte odoslanú poštu';
const OTHER_REQUEST = 'Kľúč Idempotency-Key bol už použitý pre inú požiadavku';
const OTHER_BODY = 'Kľúč Idempotency-Key bol už použitý pre požiadavku s iným obsahom';

/** How a request's content hash is known: at once (JSON), or only by reading the form (multipart). */
export interface RequestContent {
  /** Known before the work starts (JSON bodies). */
  known?: string;
  /** Reads the request without sending anything, for comparing a retry with the stored request. */
  read(): Promise<string>;
  /** After the work: the hash of what was sent. */
  sent(): Promise<string | undefined>;
}

/** Whose request under which key, what it asked (path and fields: the fingerprint), and its body when it has one. */
interface KeyedRequest {
  userId: string;
  key: string;
  fingerprint: string;
  content?: RequestContent;
}

export class SendIdempotency {
  constructor(private readonly keys: IdempotencyRepository) {}

  /**
   * Runs `work` once per (user, key). A retry after success answers the stored response; a retry
   * while the first runs, or after an unknown outcome, is a 409; a key used for another request
   * (other path) or with another body (issue 26) is a 409 too. `outcomeOf` tells what a failure of
   * `work` means for the key.
   */
  async run(
    { userId, key, fingerprint, content }: KeyedRequest,
    work: () => Promise<{ status: number; body: unknown }>,
    outcomeOf: (err: unknown) => SendOutcome,
  ): Promise<StoredResponse> {
    const existing = await this.keys.claim(userId, key, fingerprint, IDEMPOTENCY_TTL_SECONDS, content?.known ?? null);
    if (existing) return this.replay(existing, fingerprint, content);
    let response: { status: number; body: unknown };
    try {
      response = await work();
    } catch (err) {
      const outcome = outcomeOf(err);
      if (outcome === 'nothing') await this.keys.release(userId, key);
      else if (outcome === 'unknown' && err instanceof AppError) await this.keys.fail(userId, key, err.statusCode, errorBody(err));
      throw err;
    }
    await this.keys.complete(userId, key, response.status, response.body, (await content?.sent()) ?? null);
    return { ...response, replayed: false };
  }

  /** The answer to a retry of a key already claimed: the first result, its error again, or a 409. */
  private async replay(existing: IdempotencyRow, fingerprint: string, content: RequestContent | undefined): Promise<StoredResponse> {
    if (existing.fingerprint !== fingerprint) throw new ConflictError(OTHER_REQUEST, undefined, 'idempotency_conflict');
    if (existing.status === 'pending' || existing.response_status === null) throw new ConflictError(IN_PROGRESS, undefined, 'idempotency_conflict');
    if (content && existing.body_hash !== null && existing.body_hash !== (content.known ?? (await content.read()))) {
      throw new ConflictError(OTHER_BODY, undefined, 'idempotency_conflict');
    }
    // One cause, one answer: the retry of a send that ended unknown gets that send's error again.
    if (existing.status === 'failed') throw storedError(existing.response_status, existing.response_body);
    return { status: existing.response_status, body: existing.response_body, replayed: true };
  }
}

/** What is kept of an error for the retries: its code, message and details (never a stack). */
function errorBody(err: AppError): { code: ErrorCode; message: string; details?: unknown } {
  return { code: err.code, message: err.message, ...(err.details !== undefined ? { details: err.details } : {}) };
}

function storedError(status: number, body: unknown): AppError {
  const stored = body as { code: ErrorCode; message: string; details?: unknown };
  return new AppError(stored.message, status, stored.details, {}, stored.code);
}
