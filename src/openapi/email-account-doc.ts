import { idParams } from '../shared/validation.js';
import { emailAccountData, emailAccountSchema } from '../email-accounts/email-account-responses.js';
import { createEmailAccountBody, listEmailAccountsQuery, updateEmailAccountBody } from '../email-accounts/email-account-schemas.js';
import type { AreaDoc } from './route-doc.js';

const CREDENTIALS = 'Wrong mail credentials: 400. Mail server unreachable: 502, timing out: 504; JMAP not configured: 503.';

export const emailAccountArea: AreaDoc = {
  tag: 'email-accounts',
  description: "The caller's email accounts with their sync status; passwords go in, never out",
  routes: [
    {
      method: 'get',
      path: '/api/email-accounts',
      operationId: 'listEmailAccounts',
      auth: 'user',
      summary: 'List own email accounts',
      query: listEmailAccountsQuery,
      success: { status: 200, description: 'A page of email accounts (each with its sync status)', body: 'list', item: emailAccountSchema },
    },
    {
      method: 'post',
      path: '/api/email-accounts',
      operationId: 'createEmailAccount',
      auth: 'user',
      summary: 'Add an email account (validated against the JMAP server; a sync starts at once)',
      description: `${CREDENTIALS} The same address twice: 409.`,
      body: createEmailAccountBody,
      success: { status: 201, description: 'The new email account', body: 'data', data: emailAccountData },
      errors: [409, 429, 502, 503, 504],
    },
    {
      method: 'patch',
      path: '/api/email-accounts/:id',
      operationId: 'updateEmailAccount',
      auth: 'user',
      summary: 'Change address, password, active or primary flag',
      description: `New credentials are validated like on creation. ${CREDENTIALS}`,
      params: idParams,
      body: updateEmailAccountBody,
      success: { status: 200, description: 'The changed email account', body: 'data', data: emailAccountData },
      errors: [409, 429, 502, 503, 504],
    },
    {
      method: 'delete',
      path: '/api/email-accounts/:id',
      operationId: 'deleteEmailAccount',
      auth: 'user',
      summary: 'Remove an email account with its contacts and emails',
      params: idParams,
      success: { status: 200, description: 'No data', body: 'message' },
    },
    {
      method: 'post',
      path: '/api/email-accounts/:id/sync',
      operationId: 'syncEmailAccount',
      auth: 'user',
      summary: 'Sync now (any instance takes it; runs once even when requested on several)',
      description: 'An inactive account: 409.',
      params: idParams,
      success: { status: 202, description: 'The email account with its sync status', body: 'data', data: emailAccountData },
      errors: [409],
    },
  ],
};
