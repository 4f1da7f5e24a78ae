import type { Readable } from 'node:stream';
import type { EmailAccountAccess } from '../email-accounts/account-access.js';
import { NotFoundError, UpstreamError } from '../errors/app-errors.js';
import { ConcurrencyGate } from '../shared/concurrency-gate.js';
import { downloadBlob, JmapError, JmapProtocolError, JmapTimeoutError, type JmapClient } from '../jmap/index.js';
import type { EmailAccount } from '../models/index.js';
import { extensionOf, sanitiseFileName } from '../timesheets/file-name.js';
import type { AttachmentRecord } from './email-records.js';
import type { EmailService } from './email-service.js';

export interface AttachmentStream {
  attachment: AttachmentRecord;
  body: Readable;
  /** Bytes, when the mail server said (Content-Length). */
  size?: number;
  /** The client's side gets the same idle timeout: a reader that stops reading is cut off. */
  idleTimeoutMs: number;
}

const ATTACHMENT_NOT_FOUND = 'Príloha neexistuje';
const BLOB_GONE = 'Príloha sa na poštovom serveri už nenachádza';
const TOO_MANY = 'Príliš veľa sťahovaní príloh naraz. Počkajte, kým sa dokončia, a skúste to znova.';

export interface DownloadLimits {
  /** Downloads in progress per user, and in this process (429 beyond). */
  perUser: number;
  total: number;
  /** A transfer that moves no byte for this long is ended (its mail-server request with it). */
  idleTimeoutMs: number;
}

/**
 * Attachments of synced mail, streamed from the mail server's download URL on each request: the CRM
 * stores only their metadata. Who may download is decided exactly as for the email itself
 * (EmailService.get), and the account's content through EmailAccountAccess.readableAccount.
 */
export class AttachmentDownloads {
  /**
   * Each download holds one of the mail server's HTTP workers until it ends: one member holding 55
   * downloads open without reading tied them all up (issue 26).
   */
  private readonly gate: ConcurrencyGate;

  constructor(
    private readonly deps: {
      emails: EmailService;
      accounts: EmailAccountAccess;
      mail: { clientFor(account: EmailAccount): JmapClient };
      limits: DownloadLimits;
    },
  ) {
    this.gate = new ConcurrencyGate({ perKey: deps.limits.perUser, total: deps.limits.total }, TOO_MANY);
  }

  /**
   * The attachment's stream from the mail server. It holds a place of the download bound until it
   * closes: read to the end, destroyed by the caller (the client left), or ended after
   * idleTimeoutMs without a byte moving (the client stopped reading, or the server stalled).
   */
  async open(userId: string, emailId: string, attachmentId: string, signal?: AbortSignal): Promise<AttachmentStream> {
    const email = await this.deps.emails.get(userId, emailId);
    const attachment = email.attachments?.find((a) => a.id === attachmentId);
    if (!attachment) throw new NotFoundError(ATTACHMENT_NOT_FOUND);
    const account = await this.deps.accounts.readableAccount(userId, email.emailAccountId);
    const release = this.gate.enter(userId);
    try {
      const client = this.deps.mail.clientFor(account);
      const download = await downloadBlob(client, account.jmapAccountId, attachment.blobId, {
        name: mailServerName(attachment.name),
        type: attachment.type,
        signal,
        idleTimeoutMs: this.deps.limits.idleTimeoutMs,
      });
      download.body.once('close', release);
      if (download.body.destroyed) release();
      return { attachment, body: download.body, size: download.size, idleTimeoutMs: this.deps.limits.idleTimeoutMs };
    } catch (err) {
      release();
      throw downloadError(err);
    }
  }
}

/**
 * The name in the mail server's download URL. It is the sender's to choose, and the server reads it
 * as part of a path: Cyrus answers 400 to a ".." segment (an encoded "/" counts as one) and other
 * servers to any encoded "/", so such an attachment could never be downloaded. The server only
 * echoes it in its own Content-Disposition, which the CRM does not pass on (the browser gets the
 * cleaned original, email-routes.ts): a fixed name with the original's plain extension is enough.
 */
function mailServerName(original: string | null): string {
  const extension = extensionOf(sanitiseFileName(original ?? ''));
  return /^[a-z0-9]{1,10}$/.test(extension) ? `attachment.${extension}` : 'attachment';
}

/** A blob the server no longer has is a 404; any other mail-server failure an outage of the server (502/504). */
function downloadError(err: unknown): unknown {
  if (err instanceof JmapProtocolError && err.status === 404) return new NotFoundError(BLOB_GONE);
  if (err instanceof JmapTimeoutError) return new UpstreamError('Poštový server neodpovedal včas', 504);
  if (err instanceof JmapError) return new UpstreamError('Prílohu sa nepodarilo načítať z poštového servera', 502);
  return err;
}
