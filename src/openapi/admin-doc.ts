import { auditLogQuery, createUserBody, deleteUserQuery, listUsersQuery, updateUserBody } from '../admin/admin-schemas.js';
import { idParams } from '../shared/validation.js';
import { sharingRoutes } from './email-account-doc.js';
import type { AreaDoc } from './route-doc.js';

export const adminArea: AreaDoc = {
  tag: 'admin',
  description: 'User administration, email-account shares and the audit log (admins only; the same operations as crm-admin)',
  routes: [
    {
      method: 'post',
      path: '/api/admin/users',
      auth: 'admin',
      summary: 'Create a user (optionally with mail credentials, validated against JMAP)',
      body: createUserBody,
      success: { status: 201, description: 'data = { user, temporaryPassword (shown once), emailAccount? }', body: 'data' },
      errors: [409, 502, 503, 504],
    },
    {
      method: 'get',
      path: '/api/admin/users',
      auth: 'admin',
      summary: 'List users',
      query: listUsersQuery,
      success: { status: 200, description: 'A page of users', body: 'list' },
    },
    {
      method: 'get',
      path: '/api/admin/users/:id',
      auth: 'admin',
      summary: 'One user',
      params: idParams,
      success: { status: 200, description: 'data = { user }', body: 'data' },
    },
    {
      method: 'patch',
      path: '/api/admin/users/:id',
      auth: 'admin',
      summary: "Change a user's role or name",
      params: idParams,
      body: updateUserBody,
      success: { status: 200, description: 'data = { user }', body: 'data' },
      errors: [409],
    },
    {
      method: 'post',
      path: '/api/admin/users/:id/reset-password',
      auth: 'admin',
      summary: 'Issue a new temporary password (revokes the sessions of the user)',
      params: idParams,
      success: { status: 200, description: 'data = { temporaryPassword } (shown once)', body: 'data' },
    },
    {
      method: 'delete',
      path: '/api/admin/users/:id',
      auth: 'admin',
      summary: 'Delete a user with their email accounts, contacts, emails, shares and timesheet files',
      description:
        'Email accounts the user shares with others are never removed silently: newOwnerId hands them over, ' +
        'deleteSharedAccounts=true deletes them with their data; with neither, 409 shared_account_owner lists them in details.',
      params: idParams,
      query: deleteUserQuery,
      success: { status: 200, description: 'No data', body: 'message' },
      errors: [409],
    },
    {
      method: 'get',
      path: '/api/admin/audit-logs',
      auth: 'admin',
      summary: 'Audit records, newest first',
      query: auditLogQuery,
      success: { status: 200, description: 'A page of audit records', body: 'list' },
    },
    ...sharingRoutes('/api/admin/email-accounts', 'admin'),
  ],
};
