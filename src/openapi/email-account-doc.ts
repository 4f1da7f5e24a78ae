import { idParams } from '../shared/validation.js';
import {
  accountIdParams,
  changeShareBody,
  createEmailAccountBody,
  listEmailAccountsQuery,
  listMembersQuery,
  memberData,
  memberParams,
  memberView,
  shareBody,
  updateEmailAccountBody,
} from '../email-accounts/email-account-schemas.js';
import type { AreaDoc, RouteDoc } from './route-doc.js';
import { emailAccountData, emailAccountSchema } from '../email-accounts/email-account-responses.js';

const ROLES =
  'Roles: owner (linked the account; exactly one; shares and unshares), editor (edits contacts and the read state, ' +
  'may sync), viewer (reads only). canRead: false shows the contacts but no email; canSend allows sending.';

/**
 * The sharing rows of one base path: /api/email-accounts (the caller is a member; 404 for an account not
 * shared with them, 403 email_account_forbidden without the right) and /api/admin/email-accounts.
 */
export function sharingRoutes(base: string, auth: 'user' | 'admin'): RouteDoc[] {
  const who = auth === 'admin' ? 'Any account.' : 'Any member; 404 for an account not shared with the caller.';
  return [
    {
      method: 'get',
      path: `${base}/:accountId/users`,
      operationId: auth === 'admin' ? 'adminListEmailAccountMembers' : 'listEmailAccountMembers',
      auth,
      summary: 'Who has access to the email account, with role and rights (the owner first)',
      description: `${who} ${ROLES}`,
      params: accountIdParams,
      query: listMembersQuery,
      success: { status: 200, description: 'A page of members (data.items)', body: 'list', item: memberView },
    },
    {
      method: 'post',
      path: `${base}/:accountId/share`,
      operationId: auth === 'admin' ? 'adminShareEmailAccount' : 'shareEmailAccount',
      auth,
      summary: 'Share the email account with a user (editor or viewer)',
      description: `${auth === 'admin' ? 'Any account.' : 'The owner only (others: 403).'} 409 share_exists when the user already has access. ${ROLES}`,
      params: accountIdParams,
      body: shareBody,
      success: { status: 201, description: 'data.member', body: 'data', data: memberData },
      errors: [403, 409],
    },
    {
      method: 'patch',
      path: `${base}/:accountId/share/:userId`,
      operationId: auth === 'admin' ? 'adminChangeEmailAccountShare' : 'changeEmailAccountShare',
      auth,
      summary: "Change a member's role or rights; role owner hands the ownership over (the previous owner stays as an editor)",
      description: `${auth === 'admin' ? 'Any account.' : 'The owner only (others: 403).'} The owner cannot be demoted (409 owner_required).`,
      params: memberParams,
      body: changeShareBody,
      success: { status: 200, description: 'data.member', body: 'data', data: memberData },
      errors: [403, 409],
    },
    {
      method: 'delete',
      path: `${base}/:accountId/share/:userId`,
      operationId: auth === 'admin' ? 'adminUnshareEmailAccount' : 'unshareEmailAccount',
      auth,
      summary: "End a member's access (takes effect on their next request)",
      description: `${auth === 'admin' ? 'Any account.' : 'The owner, or a member removing themselves (others: 403).'} The owner cannot be removed (409 owner_required).`,
      params: memberParams,
      success: { status: 200, description: 'No data', body: 'message' },
      errors: [403, 409],
    },
  ];
}

const CREDENTIALS = 'Wrong mail credentials: 400. Mail server unreachable: 502, timing out: 504; JMAP not configured: 503.';

export const emailAccountArea: AreaDoc = {
  tag: 'email-accounts',
  description: "The caller's email accounts and those shared with them (with the caller's role), with their sync status; passwords go in, never out",
  routes: [
    {
      method: 'get',
      path: '/api/email-accounts',
      operationId: 'listEmailAccounts',
      auth: 'user',
      summary: 'List own email accounts and those shared with the caller (each with role, canRead, canSend)',
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
      summary: 'Change address, password, active or primary flag (the owner only)',
      description: `New credentials are validated like on creation. ${CREDENTIALS}`,
      params: idParams,
      body: updateEmailAccountBody,
      success: { status: 200, description: 'The changed email account', body: 'data', data: emailAccountData },
      errors: [403, 409, 429, 502, 503, 504],
    },
    {
      method: 'delete',
      path: '/api/email-accounts/:id',
      operationId: 'deleteEmailAccount',
      auth: 'user',
      summary: 'Remove an email account with its shares, contacts and emails (the owner only)',
      params: idParams,
      success: { status: 200, description: 'No data', body: 'message' },
      errors: [403],
    },
    {
      method: 'post',
      path: '/api/email-accounts/:id/sync',
      operationId: 'syncEmailAccount',
      auth: 'user',
      summary: 'Sync now, owner or editor (any instance takes it; runs once even when requested on several instances or by several members)',
      description: 'An inactive account: 409.',
      params: idParams,
      success: { status: 202, description: 'The email account with its sync status', body: 'data', data: emailAccountData },
      errors: [403, 409],
    },
    ...sharingRoutes('/api/email-accounts', 'user'),
  ],
};
