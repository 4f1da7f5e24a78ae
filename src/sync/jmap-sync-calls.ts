/**
 * The sync's JMAP requests, each ONE HTTP round trip thanks to result references (RFC 8620 §3.7):
 * mailboxes + current state; a query page + its emails; changes + the changed emails. src/jmap/mail.ts
 * has single-purpose helpers; these combine calls, which its API cannot express.
 */
import { responseFor, type JmapClient, JmapProtocolError, readEmailChanges, type Email, type MethodCall } from '../jmap/index.js';
import { BODY_CAP_BYTES } from './email-body.js';
import { BODY_PART_PROPERTIES, EMAIL_PROPERTIES, mailboxRoles, type MailboxRoles } from './email-mapper.js';

/** Email/get arguments for what the CRM stores of an email (also used to read back a sent one). */
export const EMAIL_GET_ARGS = {
  properties: EMAIL_PROPERTIES,
  bodyProperties: BODY_PART_PROPERTIES,
  fetchTextBodyValues: true,
  maxBodyValueBytes: BODY_CAP_BYTES,
};
const GET_ARGS = EMAIL_GET_ARGS;

/** Newest first: during a long first sync the user sees recent correspondence first. */
const SORT = [{ property: 'receivedAt', isAscending: false }];

type Signal = AbortSignal | undefined;

export async function fetchMailboxesAndState(client: JmapClient, accountId: string, signal: Signal): Promise<{ roles: MailboxRoles; state: string }> {
  const responses = await client.call(
    [
      ['Mailbox/get', { accountId, ids: null, properties: ['id', 'role'] }, 'm'],
      ['Email/get', { accountId, ids: [], properties: ['id'] }, 's'],
    ],
    { signal },
  );
  const state = responseFor(responses, 's', 'Email/get').state;
  if (typeof state !== 'string') throw new JmapProtocolError('Email/get answered without a state');
  return { roles: rolesFrom(responses, 'm'), state };
}

export interface Page {
  ids: string[];
  emails: Email[];
  /** How many emails match in all (for progress), when the server says. */
  total?: number;
  /** True when the server has more after this page. */
  more: boolean;
  /** The server's Email state when it answered (Email/get's state), when it says. */
  state?: string;
}

/** Whose mail a call reads: the client, the JMAP account, and the run's abort signal. */
interface MailTarget {
  client: JmapClient;
  accountId: string;
  signal: Signal;
}

/** One page of all mail outside Trash/Junk/Drafts, after `anchor` (the last id of the previous page). */
export async function fetchPage({ client, accountId, signal }: MailTarget, roles: MailboxRoles, anchor: string | null, limit: number): Promise<Page> {
  const excluded = [...roles.excluded];
  const query: Record<string, unknown> = {
    accountId,
    filter: excluded.length > 0 ? { inMailboxOtherThan: excluded } : null,
    sort: SORT,
    limit,
    calculateTotal: true,
  };
  if (anchor) Object.assign(query, { anchor, anchorOffset: 1 });
  else query.position = 0;
  const responses = await client.call(
    [
      ['Email/query', query, 'q'],
      ['Email/get', { accountId, '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' }, ...GET_ARGS }, 'g'],
    ],
    { signal },
  );
  const q = responseFor(responses, 'q', 'Email/query');
  if (!Array.isArray(q.ids) || typeof q.position !== 'number') throw new JmapProtocolError('Email/query answered without ids/position');
  const ids = q.ids as string[];
  const total = typeof q.total === 'number' ? q.total : undefined;
  const get = responseFor(responses, 'g', 'Email/get');
  const emails = listOf(get);
  // Stop on an empty page too: a server that caps `limit` lower than asked still pages to the end.
  const more = ids.length > 0 && (total === undefined || q.position + ids.length < total);
  return { ids, emails, total, more, state: typeof get.state === 'string' ? get.state : undefined };
}

export interface ChangesBatch {
  newState: string;
  hasMoreChanges: boolean;
  destroyed: string[];
  /** Created and updated emails as they are now (ids destroyed since are simply missing). */
  emails: Email[];
  roles?: MailboxRoles;
}

/**
 * Email/changes and Email/get of what was created or updated, plus (optionally) the mailboxes, in
 * one request. Cyrus's ways of saying "cannot tell" all become JmapMethodError cannotCalculateChanges
 * (readEmailChanges).
 */
export async function fetchChanges({ client, accountId, signal }: MailTarget, sinceState: string, maxChanges: number, withMailboxes: boolean): Promise<ChangesBatch> {
  const ref = (path: string) => ({ resultOf: 'c', name: 'Email/changes', path });
  const calls: MethodCall[] = [
    ['Email/changes', { accountId, sinceState, maxChanges }, 'c'],
    ['Email/get', { accountId, '#ids': ref('/created'), ...GET_ARGS }, 'gc'],
    ['Email/get', { accountId, '#ids': ref('/updated'), ...GET_ARGS }, 'gu'],
  ];
  if (withMailboxes) calls.unshift(['Mailbox/get', { accountId, ids: null, properties: ['id', 'role'] }, 'm']);
  const responses = await client.call(calls, { signal });
  // One place decides what "cannot calculate changes" looks like on Cyrus (src/jmap/mail.ts).
  const changes = readEmailChanges(responses, 'c', sinceState);
  return {
    newState: changes.newState,
    hasMoreChanges: changes.hasMoreChanges,
    destroyed: changes.destroyed,
    emails: [...listOf(responseFor(responses, 'gc', 'Email/get')), ...listOf(responseFor(responses, 'gu', 'Email/get'))],
    roles: withMailboxes ? rolesFrom(responses, 'm') : undefined,
  };
}

function rolesFrom(responses: Awaited<ReturnType<JmapClient['call']>>, callId: string): MailboxRoles {
  const list = responseFor(responses, callId, 'Mailbox/get').list;
  if (!Array.isArray(list)) throw new JmapProtocolError('Mailbox/get answered without a list');
  return mailboxRoles(list as Array<{ id: string; role?: string | null }>);
}

function listOf(response: Record<string, unknown>): Email[] {
  if (!Array.isArray(response.list)) throw new JmapProtocolError('Email/get answered without a list');
  return response.list as Email[];
}
