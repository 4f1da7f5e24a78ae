import { linkEmailSchema, loginSchema, setPasswordSchema } from '../auth/auth-schemas.js';
import type { AreaDoc } from './route-doc.js';

export const authArea: AreaDoc = {
  tag: 'auth',
  description: 'Login, onboarding (set password, link or skip mail), session and logout: spec section 4.1',
  routes: [
    {
      method: 'post',
      path: '/api/auth/login',
      auth: 'none',
      summary: 'Log in with the temporary or own password',
      description:
        'Sets the accessToken cookie, and the refreshToken cookie when rememberMe is true; without rememberMe the ' +
        'refresh token in the body ends with the access token. Also sets knownDevice (HttpOnly, path /api/auth/login, ' +
        '180 days): attempts from a browser where the user logged in before are throttled on their own. Wrong username ' +
        'or password: 401 with one message for both. Failed attempts are throttled per username+client and per client ' +
        '(IPv6: its /64), malformed bodies included (429 with Retry-After).',
      body: loginSchema,
      success: {
        status: 200,
        description: "data = { user, tokens: { accessToken, refreshToken }, needsPasswordChange, needsEmailSetup }; message 'Prihlásenie úspešné'",
        body: 'data',
      },
      errors: [401, 429],
    },
    {
      method: 'post',
      path: '/api/auth/refresh',
      auth: 'refresh',
      summary: 'New access token from the refreshToken cookie (rotates the refresh token)',
      description: "No cookie: 401 'Refresh token nie je k dispozícii'. Invalid, expired or reused: both cookies cleared, 401.",
      success: { status: 200, description: "data = { accessToken }; message 'Token obnovený'", body: 'data' },
    },
    {
      method: 'post',
      path: '/api/auth/set-password',
      auth: 'user',
      summary: 'Set an own password (onboarding step 2, or a change with currentPassword)',
      description: 'Policy: 10-128 characters, not the username, not the temporary password, not a common password.',
      body: setPasswordSchema,
      success: { status: 200, description: 'data = { user, needsPasswordChange, needsEmailSetup }', body: 'data' },
    },
    {
      method: 'post',
      path: '/api/auth/link-email',
      auth: 'user',
      summary: 'Link a email account, validated against the JMAP server (onboarding step 3)',
      body: linkEmailSchema,
      success: { status: 200, description: 'data = { email, accountId } (accountId: the JMAP account id)', body: 'data' },
      errors: [409, 502, 503, 504],
    },
    {
      method: 'post',
      path: '/api/auth/skip-email',
      auth: 'user',
      summary: 'Skip linking a email account (onboarding step 3)',
      success: { status: 200, description: 'data = { user, needsPasswordChange, needsEmailSetup }', body: 'data' },
    },
    {
      method: 'post',
      path: '/api/auth/logout',
      auth: 'user',
      summary: 'Revoke the session and clear both cookies',
      success: { status: 200, description: 'No data', body: 'message' },
    },
    {
      method: 'get',
      path: '/api/auth/session',
      auth: 'user',
      summary: 'The current session',
      success: { status: 200, description: 'data = { user, authenticated: true }', body: 'data' },
    },
    {
      method: 'get',
      path: '/api/auth/me',
      auth: 'user',
      summary: 'The signed-in user',
      success: { status: 200, description: 'data = { user }', body: 'data' },
    },
  ],
};
