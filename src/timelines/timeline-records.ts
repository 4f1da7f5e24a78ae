import type { FollowUpRecord } from '../follow-ups/follow-up-repository.js';
import type { TaskRecord } from '../tasks/task-records.js';

/** One email of a timeline: the copy shown, and every copy of the message the caller may read. */
export interface TimelineEmailRecord {
  id: string;
  emailAccountId: string;
  /** The conversation (thread) of the shown copy in its mailbox. */
  conversationId: string | null;
  threadId: string | null;
  messageId: string | null;
  subject: string | null;
  from: string | null;
  to: string | null;
  date: Date;
  direction: 'inbound' | 'outbound';
  hasAttachments: boolean;
  bodyStart: string | null;
  copies: Array<{ id: string; emailAccountId: string }>;
}

export type TimelineItem =
  { type: 'email'; at: Date; email: TimelineEmailRecord } | { type: 'task'; at: Date; task: TaskRecord } | { type: 'follow_up'; at: Date; followUp: FollowUpRecord };

export interface TimelinePage {
  items: TimelineItem[];
  hasNext: boolean;
  /** The cursor of the page after this one (null on the last). */
  nextCursor: string | null;
}
