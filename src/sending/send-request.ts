import type { Recipient } from './compose.js';

/**
 * What the sender service is asked to send, independent of how it arrived (JSON or a multipart form):
 * sending-schemas.ts parses the HTTP body into these shapes, the service never sees the schemas.
 */

/** To + Cc + Bcc together: more is a mailing, not correspondence. */
export const MAX_RECIPIENTS = 100;
export const TOO_MANY_RECIPIENTS = `Najviac ${MAX_RECIPIENTS} adresátov spolu`;

interface MessageFields {
  to?: Recipient[];
  cc?: Recipient[];
  bcc?: Recipient[];
  subject?: string;
  text: string;
  html?: string;
  /** false: without the sender's signature (default: appended). */
  signature?: boolean;
  /** Send later (src/scheduled-emails): never part of what is stored or sent. */
  sendAt?: Date;
}

/** A reply: recipients default to the original's (reply-all adds its To and Cc as Cc). */
export interface ReplyBody extends MessageFields {
  replyAll?: boolean;
}

/** A new email: from emailAccountId, or from the account of contactId (whose address is then the default To). */
export interface ComposeBody extends Omit<MessageFields, 'text'> {
  /** Absent only with templateId (the template supplies it). */
  text?: string;
  emailAccountId?: string;
  contactId?: string;
  /** A person the caller sees (src/people): sent from emailAccountId, to the address of theirs with the newest mail unless `to` is given. */
  personId?: string;
  /** Rendered for personId or contactId on the server (src/templates). */
  templateId?: string;
}

/** A forward: to the recipients given, from the forwarded email's mailbox unless emailAccountId names another. */
export interface ForwardBody extends MessageFields {
  emailAccountId?: string;
}
