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
export type EmailAddress = components['schemas']['EmailAddress'];
export type EmailAccount = components['schemas']['EmailAccount'];
export type Timesheet = components['schemas']['Timesheet'];
export type Pagination = components['schemas']['Pagination'];
export type FollowUp = components['schemas']['FollowUp'];
export type Task = components['schemas']['Task'];
/** One item of GET /api/people/{id}/timeline or /api/companies/{id}/timeline: narrow it on `type`. */
export type TimelineItem = components['schemas']['TimelineItem'];

/** Live updates (GET /api/events): the JSON of each server-sent event's `data:`, by its `event:` name. */
export interface LiveEvents {
  'email.created': components['schemas']['EmailCreatedEvent'];
  'email.updated': components['schemas']['EmailUpdatedEvent'];
  'email.deleted': components['schemas']['EmailDeletedEvent'];
  'contact.created': components['schemas']['ContactCreatedEvent'];
  'contact.updated': components['schemas']['ContactUpdatedEvent'];
  'contact.deleted': components['schemas']['ContactDeletedEvent'];
  'sync.status': components['schemas']['SyncStatusEvent'];
  'membership.changed': components['schemas']['MembershipChangedEvent'];
  'follow_up.due': components['schemas']['FollowUpDueEvent'];
  'task.due': components['schemas']['TaskDueEvent'];
  'task.assigned': components['schemas']['TaskAssignedEvent'];
  resync: components['schemas']['ResyncEvent'];
}
export type LiveEventType = keyof LiveEvents;
export const LIVE_EVENT_TYPES: readonly LiveEventType[] = [
  'email.created',
  'email.updated',
  'email.deleted',
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'sync.status',
  'membership.changed',
  'follow_up.due',
  'task.due',
  'task.assigned',
  'resync',
];

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

/**
 * Live updates in a browser: an EventSource on GET /api/events with the auth cookies
 * (withCredentials), one typed handler per event type. EventSource reconnects by itself and sends
 * Last-Event-ID, so nothing within the server's window is missed; on `resync` reload your lists.
 * Outside a browser (no EventSource, or a Bearer token) read the stream with fetch, as example.ts does.
 */
export function subscribeLiveEvents(baseUrl: string, handlers: { [T in LiveEventType]?: (data: LiveEvents[T], id: string) => void }): { close(): void } {
  const source = new EventSource(`${baseUrl}/api/events`, { withCredentials: true });
  for (const type of LIVE_EVENT_TYPES) {
    const handler = handlers[type] as ((data: unknown, id: string) => void) | undefined;
    if (handler) source.addEventListener(type, (event) => handler(JSON.parse((event as MessageEvent<string>).data), (event as MessageEvent<string>).lastEventId));
  }
  return { close: () => source.close() };
}

/** The text fields of a send or reply (POST /api/emails, POST /api/emails/{id}/reply). */
export interface SendFields {
  emailAccountId?: string;
  contactId?: string;
  /** "a@b.sk" or "Name <a@b.sk>"; a list is sent comma-separated. */
  to?: string | string[];
  cc?: string | string[];
  bcc?: string | string[];
  subject?: string;
  text: string;
  html?: string;
  /** Reply only. */
  replyAll?: boolean;
}

/** A file to attach: a Blob (or File) and the name it goes out under. */
export interface FormFile {
  blob: Blob;
  name: string;
}

/**
 * The multipart body of a send or reply with attachments: the fields first (the server must know the
 * account before the first file streams to the mail server), then every file under "attachments".
 * Pass it as `body` with `bodySerializer: (form) => form` to openapi-fetch, or to fetch() as is (never
 * set Content-Type yourself: the browser adds the boundary).
 */
export function sendForm(fields: SendFields, files: FormFile[] = []): FormData {
  const form = new FormData();
  const order: Array<keyof SendFields> = ['emailAccountId', 'contactId', 'replyAll', 'to', 'cc', 'bcc', 'subject', 'text', 'html'];
  for (const key of order) {
    const value = fields[key];
    if (value === undefined) continue;
    form.append(key, Array.isArray(value) ? value.join(', ') : String(value));
  }
  for (const file of files) form.append('attachments', file.blob, file.name);
  return form;
}

/** A downloaded file: its bytes and the name the server gave it (Content-Disposition, RFC 6266). */
export interface DownloadedFile {
  blob: Blob;
  fileName: string | null;
  type: string;
}

/**
 * GET a file (an email attachment, a timesheet) as a Blob, with the auth cookies (or pass Authorization
 * in `init.headers`). A failure throws an Error whose `body` is the ErrorEnvelope. Show it with
 * URL.createObjectURL(blob), or save it under `fileName`.
 */
export async function downloadFile(baseUrl: string, path: string, init: RequestInit = {}): Promise<DownloadedFile> {
  const res = await fetch(new URL(path, baseUrl), { credentials: 'include', ...init });
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as ApiError | null;
    throw Object.assign(new Error(body?.error.message ?? `HTTP ${res.status}`), { status: res.status, body });
  }
  return { blob: await res.blob(), fileName: fileNameOf(res.headers.get('content-disposition')), type: res.headers.get('content-type') ?? 'application/octet-stream' };
}

/** The attachment of an email, as a Blob (GET /api/emails/{id}/attachments/{attachmentId}). */
export function downloadAttachment(baseUrl: string, emailId: string, attachmentId: string, init?: RequestInit): Promise<DownloadedFile> {
  return downloadFile(baseUrl, `/api/emails/${encodeURIComponent(emailId)}/attachments/${encodeURIComponent(attachmentId)}`, init);
}

/** filename*=UTF-8''... wins over filename="..." (RFC 6266 §4.3). */
export function fileNameOf(header: string | null): string | null {
  if (!header) return null;
  const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1]!.trim());
    } catch {
      // a broken encoding: fall back to the plain name
    }
  }
  const plain = /filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/i.exec(header);
  if (!plain) return null;
  return plain[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : plain[1]!.trim();
}
