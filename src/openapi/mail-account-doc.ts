import { idParams } from '../http/validate.js';
import { createMailAccountBody, listMailAccountsQuery, updateMailAccountBody } from '../mail-accounts/mail-account-schemas.js';
import type { AreaDoc } from './route-doc.js';

export const mailAccountArea: AreaDoc = {
  tag: 'email-accounts',
  description: "The caller's mail accounts with their sync status; passwords go in, never out",
  routes: [
    {
      method: 'get',
      path: '/api/email-accounts',
      auth: 'user',
      summary: 'List own mail accounts',
      query: listMailAccountsQuery,
      success: { status: 200, description: 'A page of mail accounts (each with its sync status)', body: 'list' },
    },
    {
      method: 'post',
      path: '/api/email-accounts',
      auth: 'user',
      summary: 'Add a mail account (validated against the JMAP server; a sync starts at once)',
      body: createMailAccountBody,
      success: { status: 201, description: 'data = { account }', body: 'data' },
      errors: [409, 502, 503, 504],
    },
    {
      method: 'patch',
      path: '/api/email-accounts/:id',
      auth: 'user',
      summary: 'Change address, password, active or primary flag',
      params: idParams,
      body: updateMailAccountBody,
      success: { status: 200, description: 'data = { account }', body: 'data' },
      errors: [409, 502, 503, 504],
    },
    {
      method: 'delete',
      path: '/api/email-accounts/:id',
      auth: 'user',
      summary: 'Remove a mail account with its contacts and emails',
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
