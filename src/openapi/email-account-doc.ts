import { idParams } from '../shared/validation.js';
import { createEmailAccountBody, listEmailAccountsQuery, updateEmailAccountBody } from '../email-accounts/email-account-schemas.js';
import type { AreaDoc } from './route-doc.js';

export const emailAccountArea: AreaDoc = {
  tag: 'email-accounts',
  description: "The caller's email accounts with their sync status; passwords go in, never out",
  routes: [
    {
      method: 'get',
      path: '/api/email-accounts',
      auth: 'user',
      summary: 'List own email accounts',
      query: listEmailAccountsQuery,
      success: { status: 200, description: 'A page of email accounts (each with its sync status)', body: 'list' },
    },
    {
      method: 'post',
      path: '/api/email-accounts',
      auth: 'user',
      summary: 'Add a email account (validated against the JMAP server; a sync starts at once)',
      body: createEmailAccountBody,
      success: { status: 201, description: 'data = { account }', body: 'data' },
      errors: [409, 502, 503, 504],
    },
    {
      method: 'patch',
      path: '/api/email-accounts/:id',
      auth: 'user',
      summary: 'Change address, password, active or primary flag',
      params: idParams,
      body: updateEmailAccountBody,
      success: { status: 200, description: 'data = { account }', body: 'data' },
      errors: [409, 502, 503, 504],
    },
    {
      method: 'delete',
      path: '/api/email-accounts/:id',
      auth: 'user',
      summary: 'Remove a email account with its contacts and emails',
      params: idParams,
      success: { status: 200, description: 'No data', body: 'message' },
    },
    {
      method: 'post',
      path: '/api/email-accounts/:id/sync',
      auth: 'user',
      summary: 'Sync now (any instance takes it; runs once even when requested on several)',
      params: idParams,
      success: { status: 202, description: 'data = { account } with its sync status', body: 'data' },
      errors: [409],
    },
  ],
};
