import { BadRequestError, ServiceUnavailableError, UpstreamError } from '../errors/app-errors.js';
import { JmapAuthError, JmapError, JmapTimeoutError, JmapUnreachableError, JmapClient, validateMailCredentials } from '../jmap/index.js';

export interface MailCredentials {
  email: string;
  emailPassword: string;
}

/** Checks mail credentials against the JMAP server and answers the primary email account id. */
export type CredentialValidator = (credentials: MailCredentials) => Promise<{ accountId: string }>;

/**
 * Link-email and every credential change go through here, so the failures users see are the same
 * everywhere: wrong credentials are their mistake (400), an unreachable server is ours (502/504).
 */
export function jmapCredentialValidator(sessionUrl: string | undefined, timeoutMs: number): CredentialValidator {
  return async ({ email, emailPassword }) => {
    if (!sessionUrl) {
      throw new ServiceUnavailableError('Poštový server nie je nakonfigurovaný (chýba JMAP_SESSION_URL)');
    }
    try {
      return await validateMailCredentials(sessionUrl, email, emailPassword, { timeoutMs });
    } catch (err) {
      throw toAppError(err);
    }
  };
}

/**
 * The mail server refused these credentials (HTTP 401): the caller's mistake, or a guess. A code of
 * its own (still 400), so that the frontend asks for the password again instead of reporting a bug.
 */
export class MailCredentialsRejectedError extends BadRequestError {
  constructor() {
    super('Nesprávny email alebo heslo k emailovému účtu', undefined, 'mail_credentials_rejected');
  }
}

export function toAppError(err: unknown): Error {
  // 403: the server refuses the CRM itself (e.g. its address is blocked), whatever the password.
  if (err instanceof JmapAuthError && err.refusesClient) return new UpstreamError('Poštový server odmietol pripojenie CRM; skúste to neskôr', 502);
  if (err instanceof JmapAuthError) return new MailCredentialsRejectedError();
  if (err instanceof JmapTimeoutError) return new UpstreamError('Poštový server neodpovedal včas', 504);
  if (err instanceof JmapUnreachableError) return new UpstreamError('Poštový server nie je dostupný', 502);
  if (err instanceof JmapError) return new UpstreamError('Poštový server odpovedal neočakávane', 502);
  return err as Error;
}

/** Builds an authenticated JMAP client for a stored account (sync, read-state write-back). */
export type JmapClientFactory = (credentials: { username: string; password: string }) => JmapClient;

export function jmapClientFactory(sessionUrl: string | undefined, timeoutMs: number): JmapClientFactory {
  return ({ username, password }) => {
    if (!sessionUrl) throw new ServiceUnavailableError('Poštový server nie je nakonfigurovaný (chýba JMAP_SESSION_URL)');
    return new JmapClient({ sessionUrl, credentials: { kind: 'basic', username, password }, timeoutMs });
  };
}
