import { linkEmailData, loginData, meData, refreshData, sessionData, userStateData } from '../auth/auth-responses.js';
import { linkEmailSchema, loginSchema, setPasswordSchema } from '../auth/auth-schemas.js';
import type { AreaDoc } from './route-doc.js';
import { sessionRoutes } from './lifecycle-doc.js';

export const authArea: AreaDoc = {
  tag: 'auth',
  description: 'Login, onboarding (set password, link or skip mail), session and logout: docs/contract.md §4.1',
  routes: [
    {
      method: 'post',
      path: '/api/auth/login',
      operationId: 'login',
      auth: 'none',
      summary: 'Log in with the temporary or own password',
      description:
        'Sets the accessToken cookie, and the refreshToken cookie when rememberMe is true; without rememberMe the ' +
        'refresh token in the body ends with the access token. Also sets knownDevice (HttpOnly, path /api/auth/login, ' +
        '180 days): attempts from a browser where the user logged in before are throttled on their own. Wrong username ' +
        'or password: 401 invalid_credentials, one message for both. Failed attempts are throttled per username+client and per client ' +
        '(IPv6: its /64), malformed bodies included (429 with Retry-After). The right password of a disabled account: ' +
        '403 account_disabled (a wrong one stays 401, so nobody learns that the account exists).',
      body: loginSchema,
      success: { status: 200, description: "Logged in; message 'Prihlásenie úspešné'", body: 'data', data: loginData },
      setsCookies: true,
      errors: [401, 403, 429],
    },
    {
      method: 'post',
      path: '/api/auth/refresh',
      operationId: 'refreshToken',
      auth: 'refresh',
      summary: 'New access token from the refreshToken cookie (rotates the refresh token)',
      description:
        'No cookie: 401 refresh_token_missing. Invalid, expired or reused: 401 refresh_token_invalid and both cookies ' +
        'cleared. Sets a new accessToken cookie; when rotated, answers the new refresh token in data.refreshToken and, for a ' +
        'session opened with rememberMe only, sets it as the refreshToken cookie (a session without rememberMe never gets ' +
        'the 7-day cookie).',
      success: { status: 200, description: "message 'Token obnovený'", body: 'data', data: refreshData },
      setsCookies: true,
    },
    {
      method: 'post',
      path: '/api/auth/set-password',
      operationId: 'setPassword',
      auth: 'user',
      summary: 'Set an own password (onboarding step 2, or a change with currentPassword)',
      description:
        'Policy: 10-128 characters, not the username, not the temporary password, not a common password. Revokes the ' +
        "user's other sessions. 409 when another request changed the password at the same moment.",
      body: setPasswordSchema,
      success: { status: 200, description: 'The user and where onboarding stands now', body: 'data', data: userStateData },
      errors: [409],
    },
    {
      method: 'post',
      path: '/api/auth/link-email',
      operationId: 'linkEmail',
      auth: 'user',
      summary: 'Link an email account, validated against the JMAP server (onboarding step 3)',
      description:
        'Wrong mail credentials: 400 (refused checks are throttled: 429). Mail server unreachable: 502, timing out: 504; JMAP not configured: 503. ' +
        'A sync of the new account starts at once.',
      body: linkEmailSchema,
      success: {
        status: 200,
        description: 'data.accountId is the JMAP account id (fixed by the contract); data.emailAccount the linked account',
        body: 'data',
        data: linkEmailData,
      },
      // 429: too many refused credential checks for this user or this address (issue 13).
      errors: [409, 429, 502, 503, 504],
    },
    {
      method: 'post',
      path: '/api/auth/skip-email',
      operationId: 'skipEmail',
      auth: 'user',
      summary: 'Skip linking an email account (onboarding step 3)',
      success: { status: 200, description: 'The user and where onboarding stands now', body: 'data', data: userStateData },
    },
    {
      method: 'post',
      path: '/api/auth/logout',
      operationId: 'logout',
      auth: 'userOrRefresh',
      summary: 'Revoke the session and clear both cookies',
      description: 'The refreshToken cookie alone is enough (the access cookie expires first). An already invalid access token still clears both cookies (401).',
      success: { status: 200, description: "message 'Odhlásenie úspešné'", body: 'message' },
      setsCookies: true,
    },
    {
      method: 'get',
      path: '/api/auth/session',
      operationId: 'getSession',
      auth: 'user',
      summary: 'The current session',
      success: { status: 200, description: 'The signed-in user; authenticated is always true', body: 'data', data: sessionData },
    },
    {
      method: 'get',
      path: '/api/auth/me',
      operationId: 'getMe',
      auth: 'user',
      summary: 'The signed-in user and where onboarding stands (read it after a page reload)',
      success: { status: 200, description: 'The signed-in user', body: 'data', data: meData },
    },
    ...sessionRoutes,
  ],
};
