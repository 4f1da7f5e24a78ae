import type { ZodObjectInput } from 'zod-openapi';
import type { z } from 'zod';

/**
 * Who may call a route: nobody in particular, any signed-in user (access-token cookie or Bearer),
 * admins only, the holder of the refreshToken cookie (POST /api/auth/refresh), or either of the
 * first and the last (logout: the access cookie expires first, the refresh cookie alone must do).
 */
export type RouteAuth = 'none' | 'user' | 'admin' | 'refresh' | 'userOrRefresh';

/**
 * What a success carries, with the schema of its content (the one the route's presenter is typed
 * against, from the area's *-responses.ts): the envelope with `data`, a paged list of `item`s, only a
 * message, a file, plain text, or a bare JSON document.
 */
export type SuccessDoc =
  /** No content (a DELETE that answers nothing but its status). */
  { status: 204; description: string; body: 'none' } | SuccessWithBody;

type SuccessWithBody = { status: 200 | 201 | 202; description: string } & (
  | { body: 'data'; data: z.ZodType }
  | { body: 'list'; item: z.ZodType }
  | { body: 'message' }
  | { body: 'json' }
  /** mediaTypes: the types a download may have. */
  | { body: 'file'; mediaTypes: string[] }
  /** mediaType: the one type the text has. */
  | { body: 'text'; mediaType: string }
  /** A stream of server-sent events; `events` is the schema of one event's `data:` JSON. */
  | { body: 'events'; mediaType: 'text/event-stream'; events: z.ZodType }
);

/**
 * One row of the route table: the schemas are THE ones the route validates with (imported from the
 * area's *-schemas.ts) and the ones its presenters are typed against (*-responses.ts), so the document
 * cannot drift from what the server accepts and answers.
 */
export interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express notation, full path: /api/timesheets/:id/download. */
  path: string;
  /** Unique, a verb and a noun: what a generated client calls the operation (listContacts). */
  operationId: string;
  auth: RouteAuth;
  summary: string;
  description?: string;
  params?: ZodObjectInput;
  query?: ZodObjectInput;
  body?: z.ZodType;
  /** multipart/form-data instead of JSON (the upload). */
  multipart?: boolean;
  /** A multipart/form-data alternative to the JSON `body` (e.g. the same fields plus files). */
  form?: z.ZodType;
  success: SuccessDoc;
  /** Another success the operation may answer instead (a send with sendAt answers 202 with the scheduled email). */
  alsoSuccess?: SuccessDoc;
  /** Takes an Idempotency-Key header (sending); its success may be a replay (Idempotent-Replayed). */
  idempotent?: boolean;
  /** The success sets or clears the auth cookies (Set-Cookie). */
  setsCookies?: boolean;
  /** Failures beyond those every route of its kind has (see errorStatuses in document.ts). */
  errors?: ErrorStatus[];
}

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 502 | 503 | 504 | 507;

/** Groups rows of one area under a tag. */
export interface AreaDoc {
  tag: string;
  description: string;
  routes: RouteDoc[];
}
