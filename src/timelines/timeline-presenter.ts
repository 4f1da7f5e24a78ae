import { previewOf } from '../emails/email-presenter.js';
import { presentFollowUp } from '../follow-ups/follow-up-presenter.js';
import { presentTask } from '../tasks/task-presenter.js';
import type { TimelineItem, TimelinePage } from './timeline-records.js';
import type { TimelineData, TimelineItemResponse } from './timeline-responses.js';

export function presentTimelineItem(item: TimelineItem): TimelineItemResponse {
  switch (item.type) {
    case 'email': {
      const { bodyStart, ...email } = item.email;
      return { type: 'email', at: item.at, email: { ...email, preview: previewOf(bodyStart) } };
    }
    case 'task':
      return { type: 'task', at: item.at, task: presentTask(item.task) };
    case 'follow_up':
      return { type: 'follow_up', at: item.at, followUp: presentFollowUp(item.followUp) };
  }
}

/** The list shape of every page (items + pagination), with the cursor of the next page. */
export function presentTimeline(page: TimelinePage, request: { page: number; limit: number; cursor?: string }): TimelineData {
  const before = request.cursor === undefined ? (request.page - 1) * request.limit : 0;
  const seen = before + page.items.length;
  return {
    items: page.items.map(presentTimelineItem),
    pagination: {
      page: request.page,
      limit: request.limit,
      total: seen + (page.hasNext ? 1 : 0),
      totalExact: !page.hasNext && request.cursor === undefined,
      hasNext: page.hasNext,
      nextCursor: page.nextCursor,
    },
  };
}
