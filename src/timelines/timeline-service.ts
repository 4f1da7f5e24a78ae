import { COMPANY_NOT_FOUND } from '../companies/company-visibility.js';
import { NotFoundError } from '../errors/app-errors.js';
import type { FollowUpRepository } from '../follow-ups/follow-up-repository.js';
import { PERSON_NOT_FOUND } from '../people/person-visibility.js';
import type { TaskRepository } from '../tasks/task-repository.js';
import { decodeCursor, encodeCursor, TYPE_RANK, type TimelinePosition } from './timeline-cursor.js';
import { TIMELINE_TASK_LINKS, type TimelineKinds, type TimelineSubject } from './timeline-query.js';
import type { TimelineItem, TimelinePage } from './timeline-records.js';
import type { TimelineRepository } from './timeline-repository.js';

export type { TimelineKinds, TimelineSubject } from './timeline-query.js';

export interface TimelineRequest {
  page: number;
  limit: number;
  /** The nextCursor of the page before: a keyset (any depth at the cost of the first page); `page` is then 1. */
  cursor?: string;
  kinds: TimelineKinds;
}

const NOT_FOUND: Record<TimelineSubject, string> = { person: PERSON_NOT_FOUND, company: COMPANY_NOT_FOUND };

/**
 * The timeline of a person or a company in one request (issue 46, docs/adr/0141-timelines.md): their
 * emails (each message once), the tasks the caller sees and the caller's follow-ups, newest first.
 * A subject the caller does not see is the subject's own 404; what they see of it is the owning
 * areas' rule (timeline-query.ts).
 */
export class TimelineService {
  constructor(
    private readonly deps: {
      timelines: TimelineRepository;
      tasks: TaskRepository;
      followUps: FollowUpRepository;
    },
  ) {}

  async of(userId: string, subject: TimelineSubject, subjectId: string, request: TimelineRequest): Promise<TimelinePage> {
    const { timelines } = this.deps;
    const position = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
    if (!(await timelines.sees(userId, subject, subjectId))) throw new NotFoundError(NOT_FOUND[subject]);
    // A keyset page starts right after its cursor; an offset page reads its offset's items again (cost grows with the page number).
    const offset = position ? 0 : (request.page - 1) * request.limit;
    const keys = await timelines.keys(userId, { subject, subjectId, kinds: request.kinds }, offset + request.limit + 1, position);
    const page = keys.slice(offset, offset + request.limit);
    const hasNext = keys.length > offset + request.limit;
    const items = await this.load(userId, subject, page);
    return { items, hasNext, nextCursor: hasNext ? encodeCursor(page[page.length - 1]) : null };
  }

  /** The page's items in the keys' order; one deleted between the two reads is left out. */
  private async load(userId: string, subject: TimelineSubject, keys: TimelinePosition[]): Promise<TimelineItem[]> {
    const ids = (rank: number) => keys.filter((k) => k.rank === rank).map((k) => k.id);
    // One after the other: a request holds at most one pool connection at a time (ADR 0121).
    const emails = await this.deps.timelines.emails(userId, ids(TYPE_RANK.email));
    const tasks = new Map((await this.deps.tasks.visibleLinked(userId, ids(TYPE_RANK.task), TIMELINE_TASK_LINKS[subject])).map((t) => [t.id, t]));
    const followUps = await this.deps.followUps.byIds(userId, ids(TYPE_RANK.follow_up));
    return keys.flatMap((k): TimelineItem[] => {
      const at = new Date(k.at);
      if (k.rank === TYPE_RANK.email) {
        const email = emails.get(k.id);
        return email ? [{ type: 'email', at, email }] : [];
      }
      if (k.rank === TYPE_RANK.task) {
        const task = tasks.get(k.id);
        return task ? [{ type: 'task', at, task }] : [];
      }
      const followUp = followUps.get(k.id);
      return followUp ? [{ type: 'follow_up', at, followUp }] : [];
    });
  }
}
