import { idParams } from '../shared/validation.js';
import { timelineData } from '../timelines/timeline-responses.js';
import { timelineQuery } from '../timelines/timeline-schemas.js';
import type { AreaDoc, RouteDoc } from './route-doc.js';

const COMMON =
  'Newest first (at; then emails, follow-ups, tasks; then id). Emails: one item per message however many of your mailboxes hold it ' +
  "(the same Message-ID), with every copy you may read in copies. Tasks: those you see (assignee, creator, a conversation's readers). " +
  'Follow-ups: your own. Paged by page and limit, or by cursor (nextCursor of the page before: any depth at the cost of the first page; ' +
  'page numbers read the items before the page again). Not counted: total is a lower bound unless totalExact. With an API token, the ' +
  'items of a kind need its scope too (emails:read, tasks:read, contacts:read for follow-ups); without it that kind is left out.';

const route = (subject: 'person' | 'company'): RouteDoc => ({
  method: 'get',
  path: subject === 'person' ? '/api/people/:id/timeline' : '/api/companies/:id/timeline',
  operationId: subject === 'person' ? 'getPersonTimeline' : 'getCompanyTimeline',
  auth: 'user',
  summary: subject === 'person' ? "A person's emails, tasks and follow-ups in one list" : "A company's emails, tasks and follow-ups in one list",
  description:
    subject === 'person'
      ? `The mail of every address of the person you see, in your readable mailboxes; the tasks linked to the person. A person you do not see: 404. ${COMMON}`
      : "The mail of the company's contacts and of its people (filed under it, met in your mail), in your readable mailboxes; the tasks linked " +
        `to the company or to one of its people. A company you do not see: 404. ${COMMON}`,
  params: idParams,
  query: timelineQuery,
  success: { status: 200, description: 'A page of the timeline', body: 'data', data: timelineData },
});

export const timelineArea: AreaDoc = {
  tag: 'timelines',
  description: 'One request for the history of a person or a company: emails (each message once), tasks and follow-ups (docs/adr/0141-timelines.md)',
  routes: [route('person'), route('company')],
};
