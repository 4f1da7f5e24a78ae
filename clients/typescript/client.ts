/**
 * The typed client of the staff CRM API: openapi-fetch over the types openapi-typescript generates
 * from the OpenAPI document (schema.d.ts, `npm run client:generate`). Every path, parameter, body
 * and response is typed; `data` of a success is the documented shape, `error` of a failure the
 * ErrorEnvelope. See docs/api.md.
 */
import createFetchClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };

/** Every failure's body: branch on `error.code`, show `error.message` (Slovak). */
export type ApiError = components['schemas']['ErrorEnvelope'];
export type ErrorCode = ApiError['error']['code'];

export type User = components['schemas']['User'];
export type Contact = components['schemas']['Contact'];
export type Email = components['schemas']['Email'];
export type EmailSummary = components['schemas']['EmailSummary'];
export type EmailAccount = components['schemas']['EmailAccount'];
export type Timesheet = components['schemas']['Timesheet'];
export type Pagination = components['schemas']['Pagination'];

export type CrmClient = Client<paths>;

/**
 * A client for one server. In a browser on the frontend origin the auth cookies travel by themselves
 * (credentials: 'include'); API clients pass `headers: { Authorization: 'Bearer <accessToken>' }`.
 */
export function createClient(options: ClientOptions = {}): CrmClient {
  return createFetchClient<paths>({ credentials: 'include', ...options });
}

/** The multipart body of POST /api/timesheets/upload (openapi-fetch sends JSON unless told). */
export function timesheetForm(body: { year: string; month: string; file: Blob }, fileName: string): FormData {
  const form = new FormData();
  form.set('year', body.year);
  form.set('month', body.month);
  form.set('file', body.file, fileName);
  return form;
}
