import type { Readable } from 'node:stream';
import type { EmailAccountAccess } from '../email-accounts/account-access.js';
import { NotFoundError, UpstreamError } from '../errors/app-errors.js';
import { downloadBlob, JmapError, JmapProtocolError, JmapTimeoutError, type JmapClient } from '../jmap/index.js';
import type { EmailAccount } from '../models/index.js';
import type { AttachmentRecord } from './email-records.js';
import type { EmailService } from './email-service.js';

export interface AttachmentStream {
  attachment: AttachmentRecord;
  body: Readable;
  /** Bytes, when the mail server said (Content-Length). */
  size?: number;
}

const ATTACHMENT_NOT_FOUND = 'Príloha neexistuje';
const BLOB_GONE = 'Príloha sa na poštovom serveri už nenachádza';

/**
 * Attachments of synced mail, streamed from the mail server's download URL on each request: the CRM
 * stores only their metadata. Who may download is decided exactly as for the email itself
 * (EmailService.get), and the account's content through EmailAccountAccess.readableAccount.
 */
export class AttachmentDownloads {
  constructor(
    private readonly deps: {
      emails: EmailService;
      accounts: EmailAccountAccess;
      mail: { clientFor(account: EmailAccount): JmapClient };
    },
  ) {}

  async open(userId: string, emailId: string, attachmentId: string, signal?: AbortSignal): Promise<AttachmentStream> {
    const email = await this.deps.emails.get(userId, emailId);
    const attachment = email.attachments?.find((a) => a.id === attachmentId);
    if (!attachment) throw new NotFoundError(ATTACHMENT_NOT_FOUND);
    const account = await this.deps.accounts.readableAccount(userId, email.emailAccountId);
    try {
      const client = this.deps.mail.clientFor(account);
      const download = await downloadBlob(client, account.jmapAccountId, attachment.blobId, {
        name: attachment.name ?? 'attachment',
        type: attachment.type,
        signal,
      });
      return { attachment, body: download.body, size: download.size };
    } catch (err) {
      throw downloadError(err);
    }
  }
}

/** A blob the server no longer has is a 404; any other mail-server failure an outage of the server (502/504). */
function downloadError(err: unknown): unknown {
  if (err instanceof JmapProtocolError && err.status === 404) return new NotFoundError(BLOB_GONE);
  if (err instanceof JmapTimeoutError) return new UpstreamError('Poštový server neodpovedal včas', 504);
  if (err instanceof JmapError) return new UpstreamError('Prílohu sa nepodarilo načítať z poštového servera', 502);
  return err;
}
