import type { MemberRights } from '../email-accounts/member-repository.js';
import type { EventSink } from './event-sink.js';
import type { MembershipChange, OutboxEvent } from './event-types.js';

/** Events held for a stream while it is being set up (rights read, replay sent); beyond it, it is dropped. */
const MAX_QUEUED = 10_000;

/**
 * One open stream: whose it is, what they may see now, and where it stands. Scope follows
 * docs/api.md "Live updates": email events need canRead on the account (account-rights.ts
 * `readEmails`), contact and sync events any membership (`view`), membership events only reach the
 * member they name, follow-up events only their owner, task events only the assignee. Rights are read once at the start and then kept current by the membership events
 * themselves, applied in the order of the outbox, before any later event is judged.
 */
/**
 * Events about mail itself: only to members who may read the account's emails. email.* are written by
 * crm_events_emails() (triggers emails_events_*, migration 0021; email.updated only when is_read or
 * contact_id changed); comment.created by CommentService.add.
 */
const MAIL_EVENTS: ReadonlySet<string> = new Set(['email.created', 'email.updated', 'email.deleted', 'comment.created']);

export class Subscriber {
  rights = new Map<string, Pick<MemberRights, 'canRead'>>();
  /**
   * Events up to this id were seen by the client already (Last-Event-ID ahead of this instance): not
   * sent again, but a membership change among them is still applied to the rights.
   */
  skipUpTo = 0;
  private queue: OutboxEvent[] | undefined = [];
  ended = false;

  constructor(
    readonly userId: string,
    readonly sessionId: string,
    public sessionExpiresAt: Date,
    readonly sink: EventSink,
    /** Counts what was written (metrics). */
    private readonly sent: (type: OutboxEvent['type']) => void = () => {},
  ) {}

  get ready(): boolean {
    return this.queue === undefined;
  }

  /**
   * Hands an event to the client if they may see it; false when the client does not keep up (or the
   * set-up queue overflowed): the hub then ends the stream.
   */
  offer(event: OutboxEvent): boolean {
    if (this.ended) return true;
    if (this.queue) {
      this.queue.push(event);
      return this.queue.length <= MAX_QUEUED;
    }
    return this.deliver(event);
  }

  /** Set-up done: the events that arrived meanwhile go out in order, then live ones directly. */
  release(): boolean {
    const queued = this.queue ?? [];
    this.queue = undefined;
    for (const event of queued) if (!this.deliver(event)) return false;
    return true;
  }

  /** Applied to the stream (set-up replay or live). */
  deliver(event: OutboxEvent): boolean {
    if (event.type === 'membership.changed') {
      if (event.userId !== this.userId) return true;
      // Applied even when the client saw it elsewhere (id <= skipUpTo): the rights were read before the
      // outbox's bounds, and a change committed in between has an id the Last-Event-ID may cover.
      this.apply(event.payload as MembershipChange);
    }
    if (event.id <= this.skipUpTo) return true;
    if (!this.maySee(event)) return true;
    this.sent(event.type);
    return this.sink.send(event.id, event.type, event.payload);
  }

  maySee(event: OutboxEvent): boolean {
    switch (event.type) {
      case 'membership.changed':
        return event.userId === this.userId;
      case 'follow_up.due':
        // Private to its owner, and only while the contact's account is still theirs to see.
        return event.userId === this.userId && event.emailAccountId !== null && this.rights.has(event.emailAccountId);
      case 'task.due':
      case 'task.assigned':
        // The assignee's own news, whatever mailboxes they read (a task need not be about mail).
        return event.userId === this.userId;
      case 'comment.mentioned':
        return event.userId === this.userId && this.canRead(event);
      case 'conversation.updated':
        // A read is the reader's own news; a triage change is everyone's who may read the mailbox.
        return (event.userId === null || event.userId === this.userId) && this.canRead(event);
      default:
        return MAIL_EVENTS.has(event.type) ? this.canRead(event) : event.emailAccountId !== null && this.rights.has(event.emailAccountId);
    }
  }

  private canRead(event: OutboxEvent): boolean {
    return event.emailAccountId !== null && this.rights.get(event.emailAccountId)?.canRead === true;
  }

  private apply(change: MembershipChange): void {
    if (change.change === 'removed') this.rights.delete(change.emailAccountId);
    else this.rights.set(change.emailAccountId, { canRead: change.canRead });
  }
}
