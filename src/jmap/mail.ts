/**
 * Typed mail helpers (RFC 8621) on top of JmapClient: the handful of calls the mail sync needs,
 * each shaped so it stays within the server's limits and costs as few round trips as possible.
 */
import { chunk, responseFor, type JmapClient } from './client.js';
import { JmapMethodError, JmapProtocolError } from './errors.js';
import type { Email, Mailbox, MethodResponse, SetError } from './types.js';

/** Cyrus answers every id when no limit is given (20,000 ids in one response), so we always send one. */
export const DEFAULT_QUERY_LIMIT = 256;

export interface EmailSort {
  property: string;
  isAscending?: boolean;
  collation?: string;
}

export interface EmailQueryOptions {
  filter?: Record<string, unknown> | null;
  sort?: EmailSort[];
  position?: number;
  anchor?: string;
  anchorOffset?: number;
  limit?: number;
  /** Default true: total is part of the result. */
  calculateTotal?: boolean;
  collapseThreads?: boolean;
}

export interface EmailQueryResult {
  ids: string[];
  total?: number;
  queryState: string;
  position: number;
}

export interface BodyValueOptions {
  fetchTextBodyValues?: boolean;
  fetchHTMLBodyValues?: boolean;
  fetchAllBodyValues?: boolean;
  /** Truncates each body value (UTF-8 bytes); the value then has isTruncated: true. */
  maxBodyValueBytes?: number;
  bodyProperties?: string[];
}

export interface EmailChanges {
  oldState: string;
  newState: string;
  hasMoreChanges: boolean;
  created: string[];
  updated: string[];
  destroyed: string[];
}

export interface SeenResult {
  updated: string[];
  notUpdated: Record<string, SetError>;
  newState?: string;
}

const NEWEST_FIRST: EmailSort[] = [{ property: 'receivedAt', isAscending: false }];

export async function getMailboxes(client: JmapClient, accountId: string): Promise<Mailbox[]> {
  const r = await client.callOne<{ list: Mailbox[] }>('Mailbox/get', {
    accountId,
    ids: null,
    properties: ['id', 'name', 'role', 'parentId'],
  });
  return r.list.map(({ id, name, role, parentId }) => ({ id, name, role: role ?? null, parentId: parentId ?? null }));
}

export async function queryEmailIds(client: JmapClient, accountId: string, options: EmailQueryOptions = {}): Promise<EmailQueryResult> {
  const r = await client.callOne<Record<string, unknown>>('Email/query', queryArgs(accountId, options));
  return toQueryResult(r);
}

/**
 * Every id matching `filter`, page by page. Pages are chained by anchor (the last id seen), not by
 * position, so mail arriving or vanishing ahead of the anchor cannot shift pages into gaps or
 * repeats. Read the Email state BEFORE calling this: Email/changes from it covers what arrives while
 * paging. If the anchor itself is destroyed meanwhile, paging restarts (a few times at most).
 */
export async function queryAllEmailIds(
  client: JmapClient,
  accountId: string,
  filter: Record<string, unknown> | null = null,
  pageSize = 1000,
  sort: EmailSort[] = NEWEST_FIRST,
): Promise<{ ids: string[]; total: number; queryState: string }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await pageAll(client, accountId, filter, pageSize, sort);
    } catch (err) {
      if (!(err instanceof JmapMethodError && err.type === 'anchorNotFound') || attempt >= 3) throw err;
    }
  }
}

async function pageAll(client: JmapClient, accountId: string, filter: Record<string, unknown> | null, pageSize: number, sort: EmailSort[]) {
  const seen = new Set<string>();
  const ids: string[] = [];
  let page = await queryEmailIds(client, accountId, { filter, sort, position: 0, limit: pageSize });
  const queryState = page.queryState;
  for (;;) {
    const before = ids.length;
    for (const id of page.ids) {
      if (seen.has(id)) continue;
      seen.add(id);
      ids.push(id);
    }
    // No new id: the end, or a server that ignores anchors (which would otherwise loop forever).
    const done = ids.length === before || (page.total !== undefined && page.position + page.ids.length >= page.total);
    if (done) return { ids, total: page.total ?? ids.length, queryState };
    const anchor = page.ids[page.ids.length - 1];
    page = await queryEmailIds(client, accountId, { filter, sort, anchor, anchorOffset: 1, limit: pageSize });
  }
}

/**
 * Email/get for any number of ids, split by maxObjectsInGet / maxCallsInRequest. One request can
 * then carry maxCallsInRequest x maxObjectsInGet emails (200,000 on Cyrus): when fetching bodies,
 * pass ids in slices sized for memory.
 */
export async function getEmails(
  client: JmapClient,
  accountId: string,
  ids: readonly string[],
  properties: string[] | null,
  bodyOptions: BodyValueOptions = {},
): Promise<{ list: Email[]; notFound: string[]; state: string | undefined }> {
  if (ids.length === 0) return { list: [], notFound: [], state: undefined };
  return client.getInBatches<Email>('Email/get', accountId, ids, { properties, ...bodyOptions });
}

/** The first page of a query and its emails in ONE request (Email/get takes `#ids` from the query). */
export async function queryAndGet(
  client: JmapClient,
  accountId: string,
  query: EmailQueryOptions,
  properties: string[] | null,
  bodyOptions: BodyValueOptions = {},
): Promise<{ query: EmailQueryResult; list: Email[]; notFound: string[]; state: string }> {
  const { maxObjectsInGet } = await client.limits();
  const q = client.nextCallId('q');
  const g = client.nextCallId('g');
  const args = queryArgs(accountId, query);
  args.limit = Math.min(Number(args.limit), maxObjectsInGet);
  const responses = await client.call(
    [
      ['Email/query', args, q],
      ['Email/get', { accountId, '#ids': { resultOf: q, name: 'Email/query', path: '/ids' }, properties, ...bodyOptions }, g],
    ],
    { throwOnMethodError: true },
  );
  const got = responseFor(responses, g, 'Email/get') as { list: Email[]; notFound?: string[]; state: string };
  return { query: toQueryResult(responseFor(responses, q, 'Email/query')), list: got.list, notFound: got.notFound ?? [], state: got.state };
}

/** The current Email state (Email/get with no ids), the starting point for Email/changes. */
export async function getEmailState(client: JmapClient, accountId: string): Promise<string> {
  const r = await client.callOne<{ state?: unknown }>('Email/get', { accountId, ids: [], properties: ['id'] });
  if (typeof r.state !== 'string') throw new JmapProtocolError('Email/get answered without a state');
  return r.state;
}

/**
 * Email/changes since `sinceState`. Every way the server can say "I cannot tell you" comes out as
 * JmapMethodError type cannotCalculateChanges, so the caller has one signal for "resync in full":
 * - the RFC's own cannotCalculateChanges;
 * - Cyrus's invalidArguments for a sinceState it cannot parse (any non-numeric state);
 * - Cyrus silently accepting a numeric state it never issued (e.g. saved before the server was
 *   reset): it then answers no changes with newState BELOW sinceState. States are opaque in
 *   general, so this check applies only when both are plain decimal numbers.
 */
export async function emailChanges(client: JmapClient, accountId: string, sinceState: string, maxChanges = 5000): Promise<EmailChanges> {
  const callId = client.nextCallId('c');
  const responses = await client.call([['Email/changes', { accountId, sinceState, maxChanges }, callId]]);
  return readEmailChanges(responses, callId, sinceState);
}

/**
 * The Email/changes answer to `callId`, with the normalisation described at emailChanges(). For
 * callers that put Email/changes into a larger request (e.g. with Email/get of `#created`).
 */
export function readEmailChanges(responses: MethodResponse[], callId: string, sinceState: string): EmailChanges {
  let r: Record<string, unknown>;
  try {
    r = responseFor(responses, callId, 'Email/changes');
  } catch (err) {
    if (err instanceof JmapMethodError && err.type === 'invalidArguments' && blamesSinceState(err)) {
      throw cannotCalculate(err.details, 'invalidArguments', `server rejected sinceState ${JSON.stringify(sinceState)}`);
    }
    throw err;
  }
  const changes = toChanges(r);
  if (/^\d+$/.test(sinceState) && /^\d+$/.test(changes.newState) && BigInt(changes.newState) < BigInt(sinceState)) {
    throw cannotCalculate({}, undefined, `sinceState ${sinceState} is ahead of the server's state ${changes.newState}`);
  }
  return changes;
}

/**
 * Sets or clears $seen. `true` sets the keyword, `false` removes it (patch value null). Split by
 * maxObjectsInSet; ids the server refused come back in notUpdated with the server's SetError.
 */
export async function setSeen(client: JmapClient, accountId: string, updates: Record<string, boolean>): Promise<SeenResult> {
  const { maxObjectsInSet } = await client.limits();
  const result: SeenResult = { updated: [], notUpdated: {} };
  for (const part of chunk(Object.entries(updates), maxObjectsInSet)) {
    const update = Object.fromEntries(part.map(([id, seen]) => [id, { 'keywords/$seen': seen ? true : null }]));
    const r = await client.callOne<{ updated?: Record<string, unknown> | null; notUpdated?: Record<string, SetError> | null; newState?: string }>('Email/set', {
      accountId,
      update,
    });
    result.updated.push(...Object.keys(r.updated ?? {}));
    Object.assign(result.notUpdated, r.notUpdated ?? {});
    if (typeof r.newState === 'string') result.newState = r.newState;
  }
  return result;
}

function queryArgs(accountId: string, o: EmailQueryOptions): Record<string, unknown> {
  const args: Record<string, unknown> = {
    accountId,
    filter: o.filter ?? null,
    sort: o.sort ?? NEWEST_FIRST,
    limit: o.limit ?? DEFAULT_QUERY_LIMIT,
    calculateTotal: o.calculateTotal ?? true,
  };
  if (o.anchor !== undefined) Object.assign(args, { anchor: o.anchor, anchorOffset: o.anchorOffset ?? 0 });
  else args.position = o.position ?? 0;
  if (o.collapseThreads !== undefined) args.collapseThreads = o.collapseThreads;
  return args;
}

function toQueryResult(r: Record<string, unknown>): EmailQueryResult {
  if (!Array.isArray(r.ids) || typeof r.queryState !== 'string' || typeof r.position !== 'number') {
    throw new JmapProtocolError('Email/query answered without ids/queryState/position');
  }
  return { ids: r.ids as string[], total: typeof r.total === 'number' ? r.total : undefined, queryState: r.queryState, position: r.position };
}

function toChanges(r: Record<string, unknown>): EmailChanges {
  const list = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : []);
  if (typeof r.oldState !== 'string' || typeof r.newState !== 'string') throw new JmapProtocolError('Email/changes answered without states');
  return {
    oldState: r.oldState,
    newState: r.newState,
    hasMoreChanges: r.hasMoreChanges === true,
    created: list(r.created),
    updated: list(r.updated),
    destroyed: list(r.destroyed),
  };
}

/** Cyrus names the offending argument; unnamed, sinceState is the only one a caller gets wrong. */
function blamesSinceState(err: JmapMethodError): boolean {
  const names = err.details.arguments;
  return !Array.isArray(names) || names.includes('sinceState');
}

function cannotCalculate(details: Record<string, unknown>, serverType: string | undefined, description: string): JmapMethodError {
  return new JmapMethodError('cannotCalculateChanges', details, { methodName: 'Email/changes', serverType, description });
}
