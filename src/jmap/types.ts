/** Shared JMAP types (RFC 8620 core, RFC 8621 mail) used by the client and the mail helpers. */

export const CORE_CAPABILITY = 'urn:ietf:params:jmap:core';
export const MAIL_CAPABILITY = 'urn:ietf:params:jmap:mail';
/** RFC 8621 §7: Identity and EmailSubmission. */
export const SUBMISSION_CAPABILITY = 'urn:ietf:params:jmap:submission';

/** Basic for servers like Cyrus with passwords; Bearer only changes the Authorization header. */
export type JmapCredentials = { kind: 'basic'; username: string; password: string } | { kind: 'bearer'; token: string };

export type JmapId = string;

/** [method name, arguments, call id]: the wire form of a method call. */
export type MethodCall = [name: string, args: Record<string, unknown>, callId: string];

/** [method name or "error", arguments, call id]: the wire form of a method response. */
export type MethodResponse = [name: string, args: Record<string, unknown>, callId: string];

/** The limits the client obeys when it splits work into requests (from the core capability). */
export interface JmapLimits {
  maxSizeRequest: number;
  maxCallsInRequest: number;
  maxObjectsInGet: number;
  maxObjectsInSet: number;
  maxConcurrentRequests: number;
  maxSizeUpload: number;
}

export interface JmapAccount {
  name: string;
  isPersonal: boolean;
  isReadOnly: boolean;
  accountCapabilities: Record<string, unknown>;
}

/**
 * A validated session resource. URLs are absolute: relative ones were resolved against the URL the
 * session was finally served from (after redirects), URI-template braces kept intact.
 */
export interface JmapSession {
  /** The URL the session resource was served from, after redirects. */
  sessionUrl: string;
  username: string;
  apiUrl: string;
  downloadUrl?: string;
  uploadUrl?: string;
  eventSourceUrl?: string;
  state: string;
  capabilities: Record<string, unknown>;
  accounts: Record<string, JmapAccount>;
  primaryAccounts: Record<string, string>;
  limits: JmapLimits;
}

/** RFC 8620 §5.3 SetError. */
export interface SetError {
  type: string;
  description?: string;
  properties?: string[];
  [extra: string]: unknown;
}

export interface EmailAddress {
  name: string | null;
  email: string;
}

export interface Mailbox {
  id: JmapId;
  name: string;
  /** RFC 8621 role ("inbox", "sent", "drafts", "trash", "junk", "archive"...) or null. */
  role: string | null;
  parentId: JmapId | null;
}

export interface EmailBodyPart {
  partId?: string | null;
  blobId?: string | null;
  size?: number;
  type?: string;
  charset?: string | null;
  name?: string | null;
  disposition?: string | null;
  /** Content-ID without angle brackets (inline images). */
  cid?: string | null;
  [extra: string]: unknown;
}

export interface EmailBodyValue {
  value: string;
  isEncodingProblem: boolean;
  isTruncated: boolean;
}

/**
 * An Email as returned by Email/get. Every property is optional because Email/get returns only
 * the requested ones; `header:...` forms (e.g. `header:List-Id:asText`) land in the index signature.
 */
export interface Email {
  id: JmapId;
  blobId?: string;
  threadId?: JmapId;
  mailboxIds?: Record<JmapId, boolean>;
  keywords?: Record<string, boolean>;
  size?: number;
  receivedAt?: string;
  messageId?: string[] | null;
  inReplyTo?: string[] | null;
  references?: string[] | null;
  sender?: EmailAddress[] | null;
  from?: EmailAddress[] | null;
  to?: EmailAddress[] | null;
  cc?: EmailAddress[] | null;
  bcc?: EmailAddress[] | null;
  replyTo?: EmailAddress[] | null;
  subject?: string | null;
  sentAt?: string | null;
  hasAttachment?: boolean;
  preview?: string;
  bodyValues?: Record<string, EmailBodyValue>;
  textBody?: EmailBodyPart[];
  htmlBody?: EmailBodyPart[];
  attachments?: EmailBodyPart[];
  [extra: string]: unknown;
}
