import { adminUserData, adminUserSchema, auditLogSchema, createdUserData, temporaryPasswordData } from '../admin/admin-responses.js';
import { auditLogQuery, createUserBody, deleteUserQuery, listUsersQuery, updateUserBody } from '../admin/admin-schemas.js';
import { idParams } from '../shared/validation.js';
import { sharingRoutes } from './email-account-doc.js';
import type { AreaDoc } from './route-doc.js';
import { userStatusRoutes } from './lifecycle-doc.js';

export const adminArea: AreaDoc = {
  tag: 'admin',
  description: 'User administration, email-account shares and the audit log (admins only; the same operations as crm-admin)',
  routes: [
    {
      method: 'post',
      path: '/api/admin/users',
      operationId: 'createUser',
      auth: 'admin',
      summary: 'Create a user (optionally with mail credentials, validated against JMAP)',
      description: 'The temporary password is in this response only (Cache-Control: no-store). Duplicate username: 409.',
      body: createUserBody,
      success: { status: 201, description: 'The user, the temporary password and the email account if one was given', body: 'data', data: createdUserData },
      errors: [409, 502, 503, 504],
    },
    {
      method: 'get',
      path: '/api/admin/users',
      operationId: 'listUsers',
      auth: 'admin',
      summary: 'List users',
      query: listUsersQuery,
      success: { status: 200, description: 'A page of users', body: 'list', item: adminUserSchema },
    },
    {
      method: 'get',
      path: '/api/admin/users/:id',
      operationId: 'getUser',
      auth: 'admin',
      summary: 'One user',
      params: idParams,
      success: { status: 200, description: 'The user', body: 'data', data: adminUserData },
    },
    {
      method: 'patch',
      path: '/api/admin/users/:id',
      operationId: 'updateUser',
      auth: 'admin',
      summary: "Change a user's role or name",
      description: 'Demoting the last admin: 409.',
      params: idParams,
      body: updateUserBody,
      success: { status: 200, description: 'The changed user', body: 'data', data: adminUserData },
      errors: [409],
    },
    {
      method: 'post',
      path: '/api/admin/users/:id/reset-password',
      operationId: 'resetUserPassword',
      auth: 'admin',
      summary: 'Issue a new temporary password (revokes the sessions of the user)',
      params: idParams,
      success: { status: 200, description: 'The new temporary password (shown once)', body: 'data', data: temporaryPasswordData },
    },
    {
      method: 'delete',
      path: '/api/admin/users/:id',
      operationId: 'deleteUser',
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
    ...userStatusRoutes,
    {
      method: 'get',
      path: '/api/admin/audit-logs',
      operationId: 'listAuditLogs',
      auth: 'admin',
      summary: 'Audit records, newest first',
      query: auditLogQuery,
      success: { status: 200, description: 'A page of audit records', body: 'list', item: auditLogSchema },
    },
    ...sharingRoutes('/api/admin/email-accounts', 'admin'),
  ],
};
