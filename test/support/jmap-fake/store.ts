/**
 * The state of the JMAP fake: accounts with Cyrus's autocreated mailboxes, emails with ids derived from
 * their content (Cyrus: "M" + 24 hex of the message's SHA-1), one modseq per account that every change
 * raises (the Email state is that number, as on Cyrus), and the change log Email/changes reads.
 */
import crypto from 'node:crypto';
import { asMessageIds, asText, blobIdOf, headerValue, parseMessage, sha1, type MimePart } from './mime.js';

export interface FakeMailbox {
  id: string;
  name: string;
  role: string;
  sortOrder: number;
}

export interface StoredEmail {
  id: string;
  blobId: string;
  threadId: string;
  raw: Buffer;
  root: MimePart;
  mailboxIds: Set<string>;
  keywords: Set<string>;
  receivedAt: Date;
  createdModseq: number;
  modseq: number;
  /** Arrival order, the tie-break of equal receivedAt (newest first, as Cyrus's UIDs order them). */
  order: number;
}

const MAILBOXES: Array<[string, string, number]> = [
  ['Inbox', 'inbox', 1],
  ['Archive', 'archive', 3],
  ['Drafts', 'drafts', 4],
  ['Junk', 'junk', 6],
  ['Sent', 'sent', 5],
  ['Trash', 'trash', 7],
];

/** 24 characters of [a-z0-9], like Cyrus's mailbox ids. */
const mailboxId = () => [...crypto.randomBytes(24)].map((b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');

/** "Re: Fwd: subject" → "subject": what must match for a message to join a thread (Cyrus conversations). */
export function baseSubject(subject: string): string {
  let s = subject.trim().toLowerCase();
  for (;;) {
    const next = s.replace(/^(?:(?:re|fwd?|aw|sv|odp|wg|tr)\s*(?:\[\d+\])?\s*:\s*)/, '').trim();
    if (next === s) return s;
    s = next;
  }
}

export class FakeAccount {
  readonly mailboxes: FakeMailbox[] = MAILBOXES.map(([name, role, sortOrder]) => ({ id: mailboxId(), name, role, sortOrder }));
  readonly emails = new Map<string, StoredEmail>();
  /** Destroyed email id → the modseq of its destruction. */
  readonly destroyed = new Map<string, number>();
  readonly blobs = new Map<string, { data: Buffer; type: string }>();
  /** Cyrus starts a fresh account's modseq at about 20 (its mailboxes' creation). */
  modseq = 22;
  /** Below this state Email/changes answers cannotCalculateChanges (history no longer kept). */
  historyFloor = 0;
  submissions = 0;
  private arrivals = 0;

  constructor(
    readonly user: string,
    public password: string,
  ) {}

  get state(): string {
    return String(this.modseq);
  }

  mailbox(nameOrRoleOrId: string): FakeMailbox | undefined {
    const key = nameOrRoleOrId.toLowerCase();
    return this.mailboxes.find((m) => m.id === nameOrRoleOrId || m.role === key || m.name.toLowerCase() === key);
  }

  /** A raw message into a mailbox (IMAP APPEND, LMTP delivery or Email/set create all end here). */
  add(raw: Buffer, mailboxIds: string[], keywords: string[], receivedAt = new Date()): StoredEmail {
    const digest = sha1(raw);
    const id = `M${digest.slice(0, 24)}`;
    const existing = this.emails.get(id);
    if (existing) {
      // The same bytes again: Cyrus has one Email, now in one more mailbox.
      for (const m of mailboxIds) existing.mailboxIds.add(m);
      this.touch(existing);
      return existing;
    }
    const root = parseMessage(raw);
    const email: StoredEmail = {
      id,
      blobId: `G${digest}`,
      threadId: this.threadFor(root),
      raw,
      root,
      mailboxIds: new Set(mailboxIds),
      keywords: new Set(keywords.map((k) => k.toLowerCase())),
      receivedAt: new Date(Math.floor(receivedAt.getTime() / 1000) * 1000),
      createdModseq: ++this.modseq,
      modseq: this.modseq,
      order: ++this.arrivals,
    };
    this.emails.set(id, email);
    this.destroyed.delete(id);
    return email;
  }

  touch(email: StoredEmail): void {
    email.modseq = ++this.modseq;
  }

  destroy(id: string): boolean {
    if (!this.emails.delete(id)) return false;
    this.destroyed.set(id, ++this.modseq);
    return true;
  }

  /** A blob this account can read: an upload, a whole message or one of its parts. */
  blob(blobId: string): { data: Buffer; type: string } | undefined {
    const uploaded = this.blobs.get(blobId);
    if (uploaded) return uploaded;
    for (const email of this.emails.values()) {
      if (email.blobId === blobId) return { data: email.raw, type: 'message/rfc822' };
      const part = findPart(email.root, (p) => p.partId !== null && blobIdOf(p.body) === blobId);
      if (part) return { data: part.body, type: part.type };
    }
    return undefined;
  }

  /**
   * Cyrus's conversations: a message joins the thread of a message it references (or that references
   * it) when their subjects agree once the reply and forward prefixes are gone; else a thread of its own.
   */
  private threadFor(root: MimePart): string {
    const own = idsOf(root);
    const subject = baseSubject(asText(headerValue(root.headers, 'subject') ?? ''));
    for (const other of [...this.emails.values()].sort((a, b) => a.order - b.order)) {
      const theirs = idsOf(other.root);
      const linked = own.some((id) => theirs.includes(id));
      if (linked && baseSubject(asText(headerValue(other.root.headers, 'subject') ?? '')) === subject) return other.threadId;
    }
    return `T${crypto.randomBytes(8).toString('hex')}`;
  }
}

function idsOf(root: MimePart): string[] {
  return ['message-id', 'in-reply-to', 'references'].flatMap((name) => asMessageIds(headerValue(root.headers, name) ?? '') ?? []);
}

export function findPart(part: MimePart, test: (p: MimePart) => boolean): MimePart | undefined {
  if (test(part)) return part;
  for (const child of part.subParts) {
    const found = findPart(child, test);
    if (found) return found;
  }
  return undefined;
}
