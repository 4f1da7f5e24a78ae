import { emailData, emailSchema, emailSummarySchema, markReadData } from '../emails/email-responses.js';
import { contactIdParams, listEmailsQuery, threadQuery, updateEmailBody } from '../emails/email-schemas.js';
import { idParams } from '../shared/validation.js';
import type { AreaDoc } from './route-doc.js';

export const emailArea: AreaDoc = {
  tag: 'emails',
  description: "The caller's synced emails; read state is written back to the mail server",
  routes: [
    {
      method: 'get',
      path: '/api/emails',
      operationId: 'listEmails',
      auth: 'user',
      summary: 'List own emails (filters: contactId, emailAccountId, unread, search, from, to)',
      description: "A contactId or emailAccountId filter that is not the caller's: 404.",
      query: listEmailsQuery,
      success: { status: 200, description: 'A page of email summaries, newest first', body: 'list', item: emailSummarySchema },
      errors: [404],
    },
    {
      method: 'post',
      path: '/api/emails/contact/:contactId/read',
      operationId: 'markContactEmailsRead',
      auth: 'user',
      summary: 'Mark every email of a contact as read',
      params: contactIdParams,
      success: { status: 200, description: 'How many emails changed, and how many the mail server confirmed', body: 'data', data: markReadData },
    },
    {
      method: 'get',
      path: '/api/emails/:id',
      operationId: 'getEmail',
      auth: 'user',
      summary: 'One email with its body',
      params: idParams,
      success: { status: 200, description: 'The email', body: 'data', data: emailData },
    },
    {
      method: 'get',
      path: '/api/emails/:id/thread',
      operationId: 'getEmailThread',
      auth: 'user',
      summary: 'The thread an email belongs to',
      params: idParams,
      query: threadQuery,
      success: { status: 200, description: 'A page of the emails of the thread, oldest first', body: 'list', item: emailSchema },
    },
    {
      method: 'patch',
      path: '/api/emails/:id',
      operationId: 'updateEmail',
      auth: 'user',
      summary: 'Mark an email read or unread',
      params: idParams,
      body: updateEmailBody,
      success: { status: 200, description: 'The email', body: 'data', data: emailData },
    },
  ],
};
