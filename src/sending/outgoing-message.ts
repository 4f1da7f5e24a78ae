import type { ContactRecord } from '../contacts/contact-records.js';
import type { PersonRecord } from '../people/person-records.js';
import type { EmailRecord } from '../emails/email-records.js';
import type { JmapClient } from '../jmap/index.js';
import type { EmailAccount } from '../models/index.js';
import type { AttachmentIntake, UploadTarget } from './attachment-intake.js';
import type { SendOutcome } from './idempotency.js';

/** A reply to an email the caller can see, a forward of one, or a new message. */
export type SendTarget = { kind: 'reply'; emailId: string } | { kind: 'forward'; emailId: string } | { kind: 'new' };

/** The caller's sign-in as the request had it (AuthContext): a session, or an API token. */
export interface SendCaller {
  sessionId?: string;
  apiTokenId?: string;
}

/** Where the message goes out from, found once per request (before the first attachment, if any). */
export interface SendOrigin {
  account: EmailAccount;
  client: JmapClient;
  /** The email answered (reply). */
  original?: EmailRecord;
  /** The email forwarded: quoted below the text, its attachments carried (src/sending/forwarding.ts). */
  forwarded?: EmailRecord;
  /** The contact written to (new message with contactId): its address is the default To. */
  contact?: ContactRecord;
  /** The person written to (new message with personId): their address with the newest mail is the default To. */
  person?: PersonRecord;
  intake: AttachmentIntake;
}

/**
 * One send request in progress: its origin, the attachments uploaded so far, and how far it got, which
 * decides what a failure means for its Idempotency-Key and its rate-limit point (idempotency.ts).
 */
export class OutgoingMessage {
  /** 'nothing' until the submission request leaves; 'unknown' while it is under way; 'sent' after. */
  outcome: SendOutcome = 'nothing';
  origin?: Promise<SendOrigin>;
  /** Attachment bytes sent to the mail server so far, and the 1 MiB blocks of the upload budget spent on them. */
  uploadedBytes = 0;
  uploadBlocks = 0;
  /** The server draft being sent (POST /api/drafts/{id}/send): kept on failure, no new one made. */
  draftId?: string;
  /**
   * Set for a send scheduled for later (sendAt) or files added to a draft: its files go to the file
   * storage, not to the mail server, and nothing asks the mail server now.
   */
  keepFiles?: UploadTarget;

  constructor(
    readonly userId: string,
    /** Set once; a draft's send sets it from the draft before anything is resolved (src/drafts). */
    public target: SendTarget,
    /** Aborted when the client goes away: stops attachment uploads in progress. */
    readonly signal?: AbortSignal,
    /**
     * How the caller signed in, checked again right before the submission: their session (a sign-out
     * mid-upload stops the send) or their API token (revoked, expired or its user disabled mid-upload).
     */
    readonly caller: SendCaller = {},
  ) {}

  get sessionId(): string | undefined {
    return this.caller.sessionId;
  }
}

/** The default To of a new message: its contact's address, else its person's newest one (with the name shown for them). */
export function defaultRecipient(origin: Pick<SendOrigin, 'contact' | 'person'>): { email: string; name?: string } | undefined {
  const to = origin.contact ? { email: origin.contact.email, name: origin.contact.name } : origin.person ? { email: origin.person.emails[0], name: origin.person.name } : undefined;
  if (!to) return undefined;
  return to.name ? { email: to.email, name: to.name } : { email: to.email };
}
