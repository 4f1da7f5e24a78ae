import type { ZodObjectInput } from 'zod-openapi';
import type { z } from 'zod';

/**
 * Who may call a route: nobody in particular, any signed-in user (access-token cookie or Bearer),
 * admins only, or the holder of the refreshToken cookie (POST /api/auth/refresh).
 */
export type RouteAuth = 'none' | 'user' | 'admin' | 'refresh';

/** What a success carries: the envelope with data, a paged list, only a message, a file, or plain text. */
export type SuccessBody = 'data' | 'list' | 'message' | 'file' | 'text' | 'json';

/**
 * One row of the route table: the schemas are THE ones the route validates with (imported from the
 * area's *-schemas.ts), so the document cannot drift from what the server accepts.
 */
export interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express notation, full path: /api/timesheets/:id/download. */
  path: string;
  auth: RouteAuth;
  summary: string;
  description?: string;
  params?: ZodObjectInput;
  query?: ZodObjectInput;
  body?: z.ZodType;
  /** multipart/form-data instead of JSON (the upload). */
  multipart?: boolean;
  /** mediaTypes: for `file`, the types a download may have; for `text`, the one it has. */
  success: {
    status: 200 | 201 | 202;
    description: string;
    body: SuccessBody;
    mediaTypes?: string[];
    /** The zod schema of `data` (body 'data') or of one list item (body 'list'), when the route has one. */
    schema?: z.ZodType;
  };
  /** Failures beyond those every route of its kind has (400 for input, 401/403 for auth, 404 for ids). */
  errors?: ErrorStatus[];
}

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 429 | 502 | 503 | 504;

/** Groups rows of one area under a tag. */
export interface AreaDoc {
  tag: string;
  description: string;
  routes: RouteDoc[];
}
