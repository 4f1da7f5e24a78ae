import { followUpData, followUpSchema } from '../follow-ups/follow-up-responses.js';
import { listFollowUpsQuery, putFollowUpBody } from '../follow-ups/follow-up-schemas.js';
import { idParams } from '../shared/validation.js';
import type { AreaDoc } from './route-doc.js';

export const followUpArea: AreaDoc = {
  tag: 'follow-ups',
  description:
    'Follow-up reminders: one per contact and user, private to that user (a colleague sharing the mailbox does not see them). ' +
    'A contact the caller may not see (an account not shared with them, an unknown id) is a 404; a malformed id a 400. When one comes due, its owner ' +
    'gets a follow_up.due live event (GET /api/events); mail from the contact after it was set marks it answered',
  routes: [
    {
      method: 'get',
      path: '/api/follow-ups',
      operationId: 'listFollowUps',
      auth: 'user',
      summary: 'List your follow-ups',
      description:
        'Only your own, on contacts you may see now (a follow-up of a contact whose account is no longer shared with you is ' +
        'left out, and shows again if the share comes back). Ordered by dueAt, then id. status: due (dueAt <= now), upcoming ' +
        '(dueAt > now) or all (default). contactId: only your follow-up of that contact (a contact you may not see: 404).',
      query: listFollowUpsQuery,
      success: { status: 200, description: 'A page of follow-ups', body: 'list', item: followUpSchema },
      errors: [404],
    },
    {
      method: 'put',
      path: '/api/contacts/:id/follow-up',
      operationId: 'setFollowUp',
      auth: 'user',
      summary: 'Set or replace your follow-up of a contact',
      description:
        'One follow-up per contact and user: a PUT replaces the one there is (same id, new dueAt and note; it counts as set ' +
        'anew: answered starts over and a new follow_up.due is sent when it comes due). 200 in both cases. Any member of the ' +
        "contact's account may set one (viewers too). A dueAt in the past is due at once.",
      params: idParams,
      body: putFollowUpBody,
      success: { status: 200, description: 'The follow-up as it now stands', body: 'data', data: followUpData },
    },
    {
      method: 'delete',
      path: '/api/contacts/:id/follow-up',
      operationId: 'deleteFollowUp',
      auth: 'user',
      summary: 'Delete your follow-up of a contact',
      description: 'Also 404 when the contact is visible but you have no follow-up on it.',
      params: idParams,
      success: { status: 204, description: 'Deleted; no content', body: 'none' },
    },
  ],
};
