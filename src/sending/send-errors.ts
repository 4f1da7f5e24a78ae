/**
 * What the mail server said, as the user reads it: every refusal becomes a Slovak message with its
 * own code (src/errors/error-codes.ts). The server's own words go to the log, not to the browser.
 */
import { AppError, PayloadTooLargeError, UpstreamError, ValidationError } from '../errors/app-errors.js';
import { JmapAuthError, JmapError, JmapTimeoutError, type Envelope, type SetError } from '../jmap/index.js';

const QUOTA = 'Poštová schránka účtu je plná (prekročená kvóta): správu nie je možné uložiť ani odoslať';
const TOO_LARGE = 'Správa je pre poštový server príliš veľká';
const REFUSED = 'Poštový server odmietol správu odoslať';
const REFUSED_FOR_NOW = 'Poštový server správu dočasne odmietol; skúste to o chvíľu znova';
const NO_RECIPIENTS = 'Správa nemá žiadneho adresáta';

export function recipientRejected(addresses: string[]): AppError {
  const message = addresses.length === 1 ? `Poštový server odmietol adresáta ${addresses[0]}` : `Poštový server odmietol adresátov: ${addresses.join(', ')}`;
  return new ValidationError(
    message,
    addresses.map((address) => ({ field: 'to', message: `Adresát ${address} bol odmietnutý` })),
    'recipient_rejected',
  );
}

/** Email/set refused to create the message: nothing was stored or sent. */
export function emailRefused(error: SetError): AppError {
  if (error.type === 'overQuota') return quotaExceeded();
  if (error.type === 'tooLarge') return new PayloadTooLargeError(TOO_LARGE);
  return new AppError(REFUSED, 502, undefined, {}, 'submission_refused');
}

/**
 * EmailSubmission/set refused: nothing was sent. Cyrus reports an SMTP 5xx to RCPT TO as
 * tooManyRecipients with maxRecipients = the recipients accepted before it, so the next one in the
 * envelope is the one rejected; a refused MAIL FROM or a 4xx comes as forbiddenToSend.
 */
export function submissionRefused(error: SetError, envelope: Envelope): AppError {
  switch (error.type) {
    case 'invalidRecipients': {
      const listed = Array.isArray(error.invalidRecipients) ? (error.invalidRecipients as unknown[]).map(String) : [];
      return recipientRejected(listed.length > 0 ? listed : envelope.rcptTo);
    }
    case 'tooManyRecipients': {
      const accepted = typeof error.maxRecipients === 'number' ? error.maxRecipients : -1;
      const rejected = envelope.rcptTo[accepted];
      if (rejected !== undefined) return recipientRejected([rejected]);
      return new ValidationError('Správa má pre poštový server príliš veľa adresátov', [{ field: 'to', message: 'Príliš veľa adresátov' }]);
    }
    case 'noRecipients':
      return new ValidationError(NO_RECIPIENTS, [{ field: 'to', message: NO_RECIPIENTS }]);
    case 'overQuota':
      return quotaExceeded();
    case 'tooLarge':
      return new PayloadTooLargeError(TOO_LARGE);
    default: {
      const temporary = typeof error.description === 'string' && /^4\.\d+\.\d+/.test(error.description.trim());
      return new AppError(temporary ? REFUSED_FOR_NOW : REFUSED, 502, undefined, {}, 'submission_refused');
    }
  }
}

/** A JMAP failure before anything was submitted (session, upload, preparing): nothing was sent. */
export function mailServerError(err: unknown): unknown {
  if (err instanceof AppError || !(err instanceof JmapError)) return err;
  if (err instanceof JmapTimeoutError) return new UpstreamError('Poštový server neodpovedal včas', 504);
  if (err instanceof JmapAuthError) return new UpstreamError('Poštový server neprijal prihlasovacie údaje emailového účtu', 502);
  return new UpstreamError('Poštový server nie je dostupný alebo odpovedal neočakávane', 502);
}

/**
 * The submission request itself failed in transit: the server may or may not have sent the message.
 * The user must look before trying again (a retry with the same Idempotency-Key is refused).
 */
export function outcomeUnknown(err: unknown): AppError {
  const message = 'Nie je isté, či bola správa odoslaná (poštový server neodpovedal). Pred ďalším pokusom skontrolujte odoslanú poštu.';
  return new UpstreamError(message, err instanceof JmapTimeoutError ? 504 : 502);
}

function quotaExceeded(): AppError {
  return new AppError(QUOTA, 507, undefined, {}, 'mail_quota_exceeded');
}
