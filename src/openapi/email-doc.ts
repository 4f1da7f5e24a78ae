import { contactIdParams, listEmailsQuery, threadQuery, updateEmailBody } from '../emails/email-schemas.js';
import { idParams } from '../shared/validation.js';
import type { AreaDoc } from './route-doc.js';

export const emailArea: AreaDoc = {
  tag: 'emails',
  description:
    "The synced emails of the caller's email accounts and of those shared with them with canRead (else 403 email_account_forbidden); " +
    'read state (owner and editor) is written back to the mail server',
  routes: [
    {
      method: 'get',
      path: '/api/emails',
      auth: 'user',
      summary: 'List the emails of own and shared email accounts (filters: contactId, accountId, unread, search, from, to)',
      query: listEmailsQuery,
      success: { status: 200, description: 'A page of email summaries', body: 'list' },
      errors: [403, 404],
    },
    {
      method: 'post',
      path: '/api/emails/contact/:contactId/read',
      auth: 'user',
      summary: 'Mark every email of a contact as read',
      params: contactIdParams,
      success: { status: 200, description: 'data = how many emails changed', body: 'data' },
      errors: [403],
    },
    {
      method: 'get',
      path: '/api/emails/:id',
      auth: 'user',
      summary: 'One email with its body',
      params: idParams,
      success: { status: 200, description: 'data = the email', body: 'data' },
      errors: [403],
    },
    {
      method: 'get',
      path: '/api/emails/:id/thread',
      auth: 'user',
      summary: 'The thread an email belongs to',
      params: idParams,
      query: threadQuery,
      success: { status: 200, description: 'A page of the emails of the thread', body: 'list' },
      errors: [403],
    },
    {
      method: 'patch',
      path: '/api/emails/:id',
      auth: 'user',
      summary: 'Mark an email read or unread',
      params: idParams,
      body: updateEmailBody,
      success: { status: 200, description: 'data = the email', body: 'data' },
      errors: [403],
    },
  ],
};
