import { userStatusData } from '../admin/admin-responses.js';
import { revokedSessionsData, sessionListData } from '../auth/session-responses.js';
import { idParams } from '../shared/validation.js';
import { monthReportData } from '../timesheets/timesheet-responses.js';
import { monthQuery } from '../timesheets/timesheet-schemas.js';
import { directoryData } from '../users/user-responses.js';
import { directoryQuery } from '../users/user-schemas.js';
import type { AreaDoc, RouteDoc } from './route-doc.js';

/** The staff lifecycle (issue 29): the directory, disabling, one's sessions, the month's timesheets. */
export const userArea: AreaDoc = {
  tag: 'users',
  description: 'The colleague directory, for every signed-in user (e.g. to find whom to share a mailbox with)',
  routes: [
    {
      method: 'get',
      path: '/api/users/directory',
      operationId: 'listDirectory',
      auth: 'user',
      summary: 'Active colleagues: id, username, first and last name',
      description:
        "Disabled users are not listed; no role and nothing about anyone's login. search matches the username, first or " +
        'last name, ignoring case and diacritics ("sebo" finds "Šebo"). Sorted by last name, first name, username.',
      query: directoryQuery,
      success: { status: 200, description: 'data.users and data.pagination', body: 'data', data: directoryData },
    },
  ],
};

/** Under /api/admin (the admin area). */
export const userStatusRoutes: RouteDoc[] = [
  {
    method: 'post',
    path: '/api/admin/users/:id/disable',
    operationId: 'disableUser',
    auth: 'admin',
    summary: 'Disable a user (a leaver): no login, sessions ended, hidden from the directory, own mailboxes not synced',
    description:
      'Their data stays (deleting removes it). Every session ends at once, on every instance. Login with the right password ' +
      'then answers 403 account_disabled. An admin cannot disable themselves, nor the last active admin: 409 conflict. ' +
      'Disabling a disabled user changes nothing (changed: false).',
    params: idParams,
    success: { status: 200, description: 'The user, whether anything changed and how many sessions ended', body: 'data', data: userStatusData },
    errors: [409],
  },
  {
    method: 'post',
    path: '/api/admin/users/:id/enable',
    operationId: 'enableUser',
    auth: 'admin',
    summary: 'Enable a disabled user again',
    params: idParams,
    success: { status: 200, description: 'The user and whether anything changed', body: 'data', data: userStatusData },
  },
];

/** Under /api/auth (the auth area): one's own sessions only. */
export const sessionRoutes: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/auth/sessions',
    operationId: 'listSessions',
    auth: 'user',
    summary: "The caller's open sessions (never a token or hash)",
    description: 'current marks the session of this request. lastUsedAt is recorded at most once a minute.',
    success: { status: 200, description: 'data.sessions, the most recently used first', body: 'data', data: sessionListData },
  },
  {
    method: 'delete',
    path: '/api/auth/sessions/:id',
    operationId: 'revokeSession',
    auth: 'user',
    summary: "End one of the caller's sessions, on every instance at once",
    description: "Another user's session, or one already ended: 404. Ending the current session is a logout (its cookies are cleared).",
    params: idParams,
    // Set-Cookie (cleared cookies) only when the current session is ended: described, not a required header.
    success: { status: 200, description: 'No data', body: 'message' },
  },
  {
    method: 'post',
    path: '/api/auth/sessions/revoke-others',
    operationId: 'revokeOtherSessions',
    auth: 'user',
    summary: 'End every session of the caller but the current one',
    success: { status: 200, description: 'How many sessions ended', body: 'data', data: revokedSessionsData },
  },
];

/** Under /api/admin/timesheets (the timesheets area). */
export const timesheetMonthRoutes: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/admin/timesheets/report',
    operationId: 'timesheetMonthReport',
    auth: 'admin',
    summary: "The month's uploads per user: every active user, those with no file included",
    description: 'Disabled users appear only when they have files in the month (the export contains those).',
    query: monthQuery,
    success: { status: 200, description: 'One line per user and the totals', body: 'data', data: monthReportData },
  },
  {
    method: 'get',
    path: '/api/admin/timesheets/export',
    operationId: 'exportTimesheetMonth',
    auth: 'admin',
    summary: 'Every timesheet file of the month as one zip, a folder per username (<username>/<fileName>)',
    description:
      'Streamed while it is written (constant memory), with Content-Length. Two files of one name get " (2)" before the ' +
      'extension. A file missing from storage is left out (and logged). Audited (admin.timesheets_exported).',
    query: monthQuery,
    success: { status: 200, description: 'The zip as an attachment (timesheets-YYYY-MM.zip)', body: 'file', mediaTypes: ['application/zip'] },
    // An export counts toward EXPENSIVE_REQUESTS_PER_USER (issue 52 finding 13).
    errors: [429],
  },
];
