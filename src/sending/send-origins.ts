import type { ContactRecord } from '../contacts/contact-records.js';
import type { ContactService } from '../contacts/contact-service.js';
import type { PersonRecord } from '../people/person-records.js';
import type { PersonService } from '../people/person-service.js';
import type { EmailAccountAccess } from '../email-accounts/account-access.js';
import type { EmailRecord } from '../emails/email-records.js';
import type { EmailService } from '../emails/email-service.js';
import { ValidationError } from '../errors/app-errors.js';
import { downloadBlob, MAIL_CAPABILITY, type JmapClient } from '../jmap/index.js';
import type { EmailAccount } from '../models/index.js';
import { AttachmentIntake, jmapUploads, type IntakeLimits } from './attachment-intake.js';
import type { OutgoingMessage, SendOrigin } from './outgoing-message.js';
import { mailServerError } from './send-errors.js';
import type { UploadBudget } from './send-throttle.js';
import type { ComposeBody } from './send-request.js';

/** Signed-in JMAP clients kept per account, so a send does not fetch the session again each time. */
const CLIENT_CACHE_SIZE = 200;
const WRONG_ACCOUNT = 'Kontakt nepatrí k zvolenému emailovému účtu';

export interface SendOriginDeps {
  accounts: EmailAccountAccess;
  emails: EmailService;
  contacts: ContactService;
  people: Pick<PersonService, 'get'>;
  mail: { clientFor(account: EmailAccount): JmapClient };
  /** SEND_MAX_TOTAL_BYTES: all attachments of one email. */
  maxTotalBytes: number;
  uploadBudget: UploadBudget;
}

/**
 * Where a message goes out from: the email answered (reply), or emailAccountId / the account of contactId
 * (new message; with personId, emailAccountId); always an account the caller may send from (EmailAccountAccess.sendingAccount).
 */
export class SendOrigins {
  private readonly clients = new Map<string, JmapClient>();

  constructor(private readonly deps: SendOriginDeps) {}

  /** Found once per message, on its first attachment or at the send. */
  of(message: OutgoingMessage, fields: Partial<ComposeBody>): Promise<SendOrigin> {
    message.origin ??= this.resolve(message, fields);
    return message.origin;
  }

  private async resolve(message: OutgoingMessage, fields: Partial<ComposeBody>): Promise<SendOrigin> {
    const { accounts, emails, contacts, people } = this.deps;
    let original: EmailRecord | undefined;
    let forwarded: EmailRecord | undefined;
    let contact: ContactRecord | undefined;
    let person: PersonRecord | undefined;
    let accountId: string;
    if (message.target.kind === 'forward') {
      // Read as for a reply (canRead on its mailbox); sent from its mailbox, or from another the caller may send from.
      forwarded = await emails.get(message.userId, message.target.emailId);
      accountId = fields.emailAccountId ?? forwarded.emailAccountId;
    } else if (message.target.kind === 'reply') {
      original = await emails.get(message.userId, message.target.emailId);
      accountId = original.emailAccountId;
      contact = await contacts.get(message.userId, original.contactId).catch(() => undefined);
    } else {
      if (fields.contactId !== undefined) contact = await contacts.get(message.userId, fields.contactId);
      // A person spans mailboxes: sent from emailAccountId (the schema asks for it), to their newest address by default.
      if (fields.personId !== undefined) person = await people.get(message.userId, fields.personId);
      if (contact && fields.emailAccountId !== undefined && fields.emailAccountId !== contact.emailAccountId) {
        throw new ValidationError(WRONG_ACCOUNT, [{ field: 'contactId', message: WRONG_ACCOUNT }]);
      }
      accountId = contact?.emailAccountId ?? fields.emailAccountId!;
    }
    const account = await accounts.sendingAccount(message.userId, accountId);
    const client = this.clientFor(account);
    // Files kept for later are checked against the CRM's own limit now; the mail server's at the send.
    const limits = message.keepFiles ? { perFile: this.deps.maxTotalBytes, total: this.deps.maxTotalBytes } : await this.limits(client, account);
    const intake = new AttachmentIntake(message.keepFiles ?? jmapUploads(client, account.jmapAccountId), limits, message.signal, (bytes) =>
      this.deps.uploadBudget.reserve(message, bytes),
    );
    return { account, client, original, forwarded, contact, person, intake };
  }

  /**
   * The forwarded email's attachments, each streamed from its mailbox's download URL into the intake
   * (the upload to the sending mailbox), one at a time: the CRM holds a chunk, never a file. The same
   * checks as uploaded files apply (size limits, upload budget, no executables).
   */
  async carry(message: OutgoingMessage, origin: SendOrigin): Promise<void> {
    const attachments = origin.forwarded?.attachments ?? [];
    if (attachments.length === 0) return;
    const source = await this.deps.accounts.readableAccount(message.userId, origin.forwarded!.emailAccountId);
    const client = this.clientFor(source);
    for (const attachment of attachments) {
      let download;
      try {
        download = await downloadBlob(client, source.jmapAccountId, attachment.blobId, { name: 'attachment', type: attachment.type, signal: message.signal });
      } catch (err) {
        throw mailServerError(err);
      }
      try {
        await origin.intake.add(download.body, attachment.name ?? 'priloha', attachment.type);
      } catch (err) {
        download.body.destroy();
        throw mailServerError(err);
      }
    }
  }

  /** Keyed by the sealed password too: new credentials get a new client (and session). */
  private clientFor(account: EmailAccount): JmapClient {
    const key = `${account.id}:${account.email}:${account.emailPassword}`;
    let client = this.clients.get(key);
    if (client) {
      this.clients.delete(key);
    } else {
      client = this.deps.mail.clientFor(account);
      if (this.clients.size >= CLIENT_CACHE_SIZE) this.clients.delete(this.clients.keys().next().value!);
    }
    this.clients.set(key, client);
    return client;
  }

  /** Per file the session's maxSizeUpload; all together SEND_MAX_TOTAL_BYTES and the account's maxSizeAttachmentsPerEmail. */
  private async limits(client: JmapClient, account: EmailAccount): Promise<IntakeLimits> {
    try {
      const session = await client.session();
      const mail = session.accounts[account.jmapAccountId]?.accountCapabilities[MAIL_CAPABILITY] as { maxSizeAttachmentsPerEmail?: unknown } | undefined;
      const serverTotal = typeof mail?.maxSizeAttachmentsPerEmail === 'number' ? mail.maxSizeAttachmentsPerEmail : Infinity;
      const total = Math.min(this.deps.maxTotalBytes, serverTotal);
      return { perFile: Math.min(session.limits.maxSizeUpload, total), total };
    } catch (err) {
      throw mailServerError(err);
    }
  }
}
