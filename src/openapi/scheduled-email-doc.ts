import { scheduledEmailData, scheduledEmailSchema } from '../scheduled-emails/scheduled-email-responses.js';
import { scheduledListQuery } from '../scheduled-emails/scheduled-email-schemas.js';
import { idParams } from '../shared/validation.js';
import type { AreaDoc, SuccessDoc } from './route-doc.js';

/** The 202 of a send with sendAt (compose, reply, forward, a draft's send). */
export const scheduledAccepted: SuccessDoc = {
  status: 202,
  description:
    'With sendAt: scheduled, nothing sent yet. data.scheduled = the scheduled email (id, sendAt, status scheduled, cancellable, attachments kept); ' +
    'it goes within seconds of sendAt, once, after the rights are checked again (GET /api/scheduled-emails shows how it ended).',
  body: 'data',
  data: scheduledEmailData,
};

export const scheduledEmailArea: AreaDoc = {
  tag: 'scheduled-emails',
  description:
    'Sends scheduled for later (sendAt on POST /api/emails, /api/emails/{id}/reply, /api/emails/{id}/forward and POST /api/drafts/{id}/send: 202). ' +
    "Your own only (another user's id: 404). It goes within about a second of sendAt, exactly once across instances and restarts; it does not go " +
    'when you are disabled or have lost the right to send from the mailbox by then, and failure says why. An undo window is a sendAt a few seconds ' +
    'ahead plus DELETE before it goes. Finished ones are listed for 30 days.',
  routes: [
    {
      method: 'get',
      path: '/api/scheduled-emails',
      operationId: 'listScheduledEmails',
      auth: 'user',
      summary: 'List your scheduled emails, with their state',
      description: 'Latest sendAt first; status filters.',
      query: scheduledListQuery,
      success: { status: 200, description: 'A page of scheduled emails', body: 'list', item: scheduledEmailSchema },
    },
    {
      method: 'get',
      path: '/api/scheduled-emails/:id',
      operationId: 'getScheduledEmail',
      auth: 'user',
      summary: 'One of your scheduled emails',
      params: idParams,
      success: { status: 200, description: 'The scheduled email', body: 'data', data: scheduledEmailData },
    },
    {
      method: 'delete',
      path: '/api/scheduled-emails/:id',
      operationId: 'cancelScheduledEmail',
      auth: 'user',
      summary: 'Cancel a scheduled email before it goes (undo)',
      description:
        'Only while its status is scheduled: once it is being sent, sent, failed or cancelled, 409 scheduled_email_not_cancellable. What was typed ' +
        '(recipients, subject, text, HTML) and its files become a server draft: data.scheduled.draftId.',
      params: idParams,
      success: { status: 200, description: 'Cancelled; data.scheduled with status cancelled and draftId', body: 'data', data: scheduledEmailData },
    },
  ],
};
