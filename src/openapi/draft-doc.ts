import { draftData, draftSchema } from '../drafts/draft-responses.js';
import { z } from 'zod';
import { createDraftBody, draftFileParams, sendDraftBody, updateDraftBody, updateDraftFields } from '../drafts/draft-schemas.js';
import { sentEmailData } from '../sending/sending-presenter.js';
import { idParams, paginationQuery } from '../shared/validation.js';
import type { AreaDoc } from './route-doc.js';
import { scheduledAccepted } from './scheduled-email-doc.js';

const files = z.array(z.string().meta({ format: 'binary' })).meta({
  description:
    'Files added to the draft (field "attachments", after every text field): checked by content as a send\'s files are (executables refused), ' +
    'kept in the CRM until the draft is sent; a draft holds at most 20 files and SEND_MAX_TOTAL_BYTES together',
});
const FORM =
  ' As JSON, or as multipart/form-data with the same text fields first and files in "attachments" (a text field after a file: 400): ' +
  "the checks of a send's files apply (executable: 400 attachment_not_allowed; too large: 413; the upload budget and the uploads of one " +
  'user at once: 429). A refused form changes nothing.';

export const draftArea: AreaDoc = {
  tag: 'drafts',
  description:
    "Drafts kept on the server, private to their author (another user's draft id: 404, like an unknown one). A draft is for a mailbox you may send " +
    'from (not shared with you: 404; without canSend, e.g. a viewer: 403) and may answer an email of that mailbox (replyToEmailId). When compose or ' +
    "reply fails at the mail server (submission_refused, upstream_unavailable, upstream_timeout, mail_quota_exceeded), the error's details are " +
    '{ draftId }: a draft holding what was typed (its recipients, subject, text and HTML; the files of that send are not kept). A draft keeps ' +
    'its own files (multipart POST and PATCH), sent with it.',
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
      description: 'Only emailAccountId is required. A replyToEmailId of another mailbox: 400; one you may not read: 404/403.' + FORM,
      body: createDraftBody,
      form: createDraftBody.safeExtend({ attachments: files.optional() }),
      success: { status: 201, description: 'The draft', body: 'data', data: draftData },
      errors: [403, 404, 413, 429],
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
      description:
        'The fields given replace the stored ones; html null and replyToEmailId null clear them. Files of a form are added to the ' +
        "draft's (a form may bring files alone)." +
        FORM,
      params: idParams,
      body: updateDraftBody,
      form: updateDraftFields.safeExtend({ attachments: files.optional() }).meta({ minProperties: 1 }),
      success: { status: 200, description: 'The draft as it now stands', body: 'data', data: draftData },
      errors: [403, 413, 429],
    },
    {
      method: 'delete',
      path: '/api/drafts/:id/attachments/:fileId',
      operationId: 'deleteDraftAttachment',
      auth: 'user',
      summary: 'Take a file off a draft',
      description: "It is not sent with the draft and is removed from the CRM. Another user's draft, or a file not of this draft: 404.",
      params: draftFileParams,
      success: { status: 204, description: 'Removed; no content', body: 'none' },
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
        "Sent as compose sends, with the draft's files as attachments (a draft with replyToEmailId as a reply: empty recipients and subject take the reply's defaults), with your signature " +
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
