import { draftData, draftSchema } from '../drafts/draft-responses.js';
import { createDraftBody, sendDraftBody, updateDraftBody } from '../drafts/draft-schemas.js';
import { sentEmailData } from '../sending/sending-presenter.js';
import { idParams, paginationQuery } from '../shared/validation.js';
import type { AreaDoc } from './route-doc.js';
import { scheduledAccepted } from './scheduled-email-doc.js';

export const draftArea: AreaDoc = {
  tag: 'drafts',
  description:
    "Drafts kept on the server, private to their author (another user's draft id: 404, like an unknown one). A draft is for a mailbox you may send " +
    'from (not shared with you: 404; without canSend, e.g. a viewer: 403) and may answer an email of that mailbox (replyToEmailId). When compose or ' +
    "reply fails at the mail server (submission_refused, upstream_unavailable, upstream_timeout, mail_quota_exceeded), the error's details are " +
    '{ draftId }: a draft holding what was typed (its recipients, subject, text and HTML; attachments are not kept). Attachments on drafts: not yet',
  routes: [
    {
      method: 'get',
      path: '/api/drafts',
      operationId: 'listDrafts',
      auth: 'user',
      summary: 'List your drafts',
      description: 'Last changed first.',
      query: paginationQuery,
      success: { status: 200, description: 'A page of drafts', body: 'list', item: draftSchema },
    },
    {
      method: 'post',
      path: '/api/drafts',
      operationId: 'createDraft',
      auth: 'user',
      summary: 'Save a new draft',
      description: 'Only emailAccountId is required. A replyToEmailId of another mailbox: 400; one you may not read: 404/403.',
      body: createDraftBody,
      success: { status: 201, description: 'The draft', body: 'data', data: draftData },
      errors: [403, 404],
    },
    {
      method: 'get',
      path: '/api/drafts/:id',
      operationId: 'getDraft',
      auth: 'user',
      summary: 'One of your drafts',
      params: idParams,
      success: { status: 200, description: 'The draft', body: 'data', data: draftData },
    },
    {
      method: 'patch',
      path: '/api/drafts/:id',
      operationId: 'updateDraft',
      auth: 'user',
      summary: 'Change a draft (autosave)',
      description: 'The fields given replace the stored ones; html null and replyToEmailId null clear them.',
      params: idParams,
      body: updateDraftBody,
      success: { status: 200, description: 'The draft as it now stands', body: 'data', data: draftData },
      errors: [403],
    },
    {
      method: 'delete',
      path: '/api/drafts/:id',
      operationId: 'deleteDraft',
      auth: 'user',
      summary: 'Delete a draft',
      params: idParams,
      success: { status: 204, description: 'Deleted; no content', body: 'none' },
    },
    {
      method: 'post',
      path: '/api/drafts/:id/send',
      operationId: 'sendDraft',
      auth: 'user',
      summary: 'Send a draft',
      description:
        "Sent as compose sends (a draft with replyToEmailId as a reply: empty recipients and subject take the reply's defaults), with your signature " +
        'unless signature: false, under the same rights, rate limit and Idempotency-Key rules. The draft is removed once the mail server took the ' +
        'message; any failure keeps it (a mail-server failure answers its id in details.draftId). A replay of a sent draft answers the first result. ' +
        'With sendAt: 202, the draft (its text and files) moves into the schedule and is removed; a cancel makes it a draft again.',
      params: idParams,
      body: sendDraftBody,
      idempotent: true,
      success: { status: 201, description: 'Sent; the same answer as compose', body: 'data', data: sentEmailData },
      alsoSuccess: scheduledAccepted,
      errors: [403, 409, 429, 502, 504, 507],
    },
  ],
};
