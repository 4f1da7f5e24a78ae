import { z } from 'zod';
import { EVENT_SCHEMAS } from '../events/event-types.js';
import type { AreaDoc } from './route-doc.js';

/** The `data:` of every event, one schema per `event:` name (the generated client exports each). */
const eventData = z.union(Object.values(EVENT_SCHEMAS) as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]]).meta({
  id: 'LiveEventData',
  description:
    'The JSON of a `data:` line; which schema follows from the `event:` name: email.created EmailCreatedEvent, email.updated ' +
    'EmailUpdatedEvent, email.deleted EmailDeletedEvent, contact.created ContactCreatedEvent, contact.updated ' +
    'ContactUpdatedEvent, contact.deleted ContactDeletedEvent, sync.status SyncStatusEvent, membership.changed ' +
    'MembershipChangedEvent, follow_up.due FollowUpDueEvent, resync ResyncEvent.',
});

const STREAM =
  'Server-sent events (text/event-stream; use EventSource with withCredentials: true, or send the Bearer header). Each event: ' +
  '`id:` (a growing number; absent on resync), `event:` (its type), one `data:` line of JSON (ids and the email account, never ' +
  'content: fetch what changed with the ordinary endpoints). Comment lines (`:`) every ~25 s keep proxies from closing it. Scope: ' +
  'only accounts you are a member of now, with your rights now: email events need canRead; membership.changed and follow_up.due only about you; ' +
  'a share removed, a logout, a revoked session or a password change ends or narrows the stream within a second. Header ' +
  'Last-Event-ID (EventSource sends it when it reconnects) replays what was missed within the last ~10 minutes / 10,000 ' +
  'events; beyond that (or an unknown id) a `resync` event says: reload your lists. A write touching more than 50 rows of an ' +
  'account (a first sync) comes as one event with `count` and no `ids`. At most EVENTS_MAX_STREAMS_PER_USER (default 5) ' +
  'streams per user per instance (429 beyond). A client that stops reading is disconnected, never buffered for.';

export const eventArea: AreaDoc = {
  tag: 'events',
  description: 'Live updates: new mail, read state, contacts, sync status, shares and your follow-ups coming due, as server-sent events',
  routes: [
    {
      method: 'get',
      path: '/api/events',
      operationId: 'streamEvents',
      auth: 'user',
      summary: 'Live updates of your email accounts (server-sent events)',
      description: STREAM,
      success: { status: 200, description: 'An open event stream', body: 'events', mediaType: 'text/event-stream', events: eventData },
      errors: [429],
    },
  ],
};
