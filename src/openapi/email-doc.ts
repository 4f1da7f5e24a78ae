import { attachmentParams, contactIdParams, listEmailsQuery, threadQuery, updateEmailBody } from '../emails/email-schemas.js';
import { idParams } from '../shared/validation.js';
import type { AreaDoc } from './route-doc.js';

export const emailArea: AreaDoc = {
  tag: 'emails',
  description: "The caller's synced emails; read state is written back to the mail server",
  routes: [
    {
      method: 'get',
      path: '/api/emails',
      auth: 'user',
      summary: 'List own emails (filters: contactId, accountId, unread, search, from, to)',
      query: listEmailsQuery,
      success: { status: 200, description: 'A page of email summaries', body: 'list' },
    },
    {
      method: 'post',
      path: '/api/emails/contact/:contactId/read',
      auth: 'user',
      summary: 'Mark every email of a contact as read',
      params: contactIdParams,
      success: { status: 200, description: 'data = how many emails changed', body: 'data' },
    },
    {
      method: 'get',
      path: '/api/emails/:id',
      auth: 'user',
      summary: 'One email with its body',
      params: idParams,
      success: { status: 200, description: 'data = the email', body: 'data' },
    },
    {
      method: 'get',
      path: '/api/emails/:id/thread',
      auth: 'user',
      summary: 'The thread an email belongs to',
      params: idParams,
      query: threadQuery,
      success: { status: 200, description: 'A page of the emails of the thread', body: 'list' },
    },
    {
      method: 'get',
      path: '/api/emails/:id/attachments/:attachmentId',
      auth: 'user',
      summary: 'Download an attachment of an email (streamed from the mail server)',
      description:
        'The email detail lists attachments (id, name, type, size, inline). The content is streamed from the JMAP ' +
        'server, never stored by the CRM: Content-Disposition attachment (RFC 6266 file name), X-Content-Type-Options nosniff. ' +
        'The same visibility as the email. A blob the mail server no longer has is 404; the mail server unreachable is 502.',
      params: attachmentParams,
      success: { status: 200, description: 'The attachment bytes, with the type the email declared', body: 'file', mediaTypes: ['application/octet-stream'] },
      errors: [502, 504],
    },
    {
      method: 'patch',
      path: '/api/emails/:id',
      auth: 'user',
      summary: 'Mark an email read or unread',
      params: idParams,
      body: updateEmailBody,
      success: { status: 200, description: 'data = the email', body: 'data' },
    },
  ],
};
