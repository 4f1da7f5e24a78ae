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
export function subscribeLiveEvents(
  baseUrl: string,
  handlers: { [T in LiveEventType]?: (data: LiveEvents[T], id: string) => void },
): { close(): void } {
  const source = new EventSource(`${baseUrl}/api/events`, { withCredentials: true });
  for (const type of LIVE_EVENT_TYPES) {
    const handler = handlers[type] as ((data: unknown, id: string) => void) | undefined;
    if (handler) source.addEventListener(type, (event) => handler(JSON.parse((event as MessageEvent<string>).data), (event as MessageEvent<string>).lastEventId));
  }
  return { close: () => source.close() };
}
