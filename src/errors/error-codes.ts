/**
 * Stable machine-readable error codes (docs/contract.md §7): `error.code` beside the
 * contract's message and statusCode. Frontends branch on these, never on the Slovak text. Every code is
 * listed here with the status it comes with, and the OpenAPI document lists them all. A new code is
 * a new row; a code is never renamed (that would break frontends).
 */
export const ERROR_CODES = {
  validation_failed: { status: 400, description: 'The request did not pass validation; details name the fields.' },
  bad_request: { status: 400, description: 'The request could not be understood.' },
  invalid_json: { status: 400, description: 'The body is not valid JSON.' },
  authentication_required: { status: 401, description: 'No valid access token (missing, expired, revoked).' },
  invalid_credentials: { status: 401, description: 'Wrong username or password (the same for unknown users).' },
  refresh_token_missing: { status: 401, description: 'POST /api/auth/refresh without the refreshToken cookie.' },
  refresh_token_invalid: { status: 401, description: 'The refresh token expired, was revoked or reused; both cookies are cleared.' },
  duplicate_cookie: { status: 400, description: 'The Cookie header names an auth cookie twice (a planted cookie); sign in again from a clean browser.' },
  forbidden: { status: 403, description: 'Authenticated, but not allowed (e.g. not an admin).' },
  password_change_required: {
    status: 403,
    description: 'The user still has a temporary password: only login, refresh, logout, me, session and set-password answer until a password is set.',
  },
  csrf_rejected: {
    status: 403,
    description: 'A state-changing request authenticated by cookie came from a foreign origin (Origin neither this service nor CORS_ORIGIN, or Sec-Fetch-Site: cross-site).',
  },
  api_token_not_allowed: {
    status: 403,
    description: 'This path cannot be called with an API token (set-password, sessions, link-email, logout, token management, the event stream): sign in instead.',
  },
  insufficient_scope: { status: 403, description: "The API token's scopes do not cover this request; details.requiredScope names the scope it needs." },
  quota_exceeded: { status: 403, description: "The upload would go over the user's timesheet quota (number of files or bytes)." },
  email_account_forbidden: {
    status: 403,
    description: 'The email account is shared with the caller, but their role or rights on it do not allow this (e.g. a viewer editing, canRead false reading emails).',
  },
  not_found: { status: 404, description: 'The resource does not exist or is not visible to the caller.' },
  route_not_found: { status: 404, description: 'No such path under /api.' },
  method_not_allowed: { status: 405, description: 'The path exists, but not with this method; the Allow header lists the methods it has.' },
  conflict: { status: 409, description: 'The request conflicts with the current state (duplicate, last admin, concurrent change).' },
  share_exists: { status: 409, description: 'The user already has access to this email account (change the share instead).' },
  owner_required: { status: 409, description: "An email account's owner cannot be removed or lose rights; transfer the ownership first." },
  shared_account_owner: {
    status: 409,
    description: 'The user to delete owns email accounts shared with others: choose a new owner or delete those accounts explicitly.',
  },
  request_timeout: { status: 408, description: 'The request did not arrive in time.' },
  payload_too_large: { status: 413, description: 'The body or the uploaded file is over the limit.' },
  unsupported_media_type: {
    status: 415,
    description: 'The body is not application/json (or multipart/form-data for uploads), or its charset or Content-Encoding is not supported.',
  },
  expectation_failed: { status: 417, description: 'An Expect header this server does not support.' },
  request_headers_too_large: { status: 431, description: 'The request headers are over the limit.' },
  rate_limited: { status: 429, description: 'Too many attempts; Retry-After says when to try again.' },
  internal_error: { status: 500, description: 'An unexpected failure; nothing internal is disclosed.' },
  upstream_unavailable: { status: 502, description: 'The mail (JMAP) server could not be reached or answered badly.' },
  service_unavailable: { status: 503, description: 'A dependency (database, storage, JMAP configuration) is unavailable; Retry-After.' },
  upstream_timeout: { status: 504, description: 'The mail (JMAP) server did not answer in time.' },
  recipient_rejected: { status: 400, description: 'The mail server rejected a recipient; details name the address.' },
  attachment_not_allowed: { status: 400, description: 'An attachment that may not be sent (an executable, also one disguised by its name).' },
  idempotency_conflict: { status: 409, description: 'The Idempotency-Key was used for another request, or its first request has not finished (or ended with an unknown outcome).' },
  submission_refused: { status: 502, description: 'The mail server refused to send the message (policy, sender not allowed, temporary refusal); nothing was sent.' },
  mail_quota_exceeded: { status: 507, description: 'The mailbox is over its quota: the message could not be stored, nothing was sent.' },
  mail_credentials_rejected: {
    status: 400,
    description: 'The mail server refused the email address or password (link-email, adding or changing an email account): ask the user again.',
  },
  insufficient_storage: { status: 507, description: 'The server keeps a free-space reserve for its database; uploads are refused below it.' },
  account_disabled: { status: 403, description: 'Login with the right password of a disabled account (a wrong password stays 401 invalid_credentials).' },
  scheduled_email_not_cancellable: {
    status: 409,
    description: 'A scheduled email that is being sent, was sent, failed or was cancelled already: there is nothing to cancel (its status says which).',
  },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
