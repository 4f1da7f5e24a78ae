/**
 * The read methods of the JMAP fake (Mailbox/get, Email/get, Email/query, Email/changes, Identity/get,
 * Thread/get) with Cyrus 3.6's answers to wrong arguments: invalidArguments naming the argument,
 * requestTooLarge for an Email/get without ids, a numeric sinceState it never issued answered with no
 * changes (src/jmap/mail.ts turns that into cannotCalculateChanges).
 */
import { DEFAULT_PROPERTIES, invalidBodyProperty, invalidProperty, renderEmail } from './email-view.js';
import { asText, headerValue } from './mime.js';
import type { FakeAccount, StoredEmail } from './store.js';

type Args = Record<string, unknown>;
export class MethodError extends Error {
  constructor(readonly details: Record<string, unknown>) {
    super(String(details.type));
  }
}
const invalid = (argument: string) => new MethodError({ type: 'invalidArguments', arguments: [argument] });

export function mailboxGet(account: FakeAccount, args: Args): Args {
  const ids = args.ids as string[] | null | undefined;
  const properties = (args.properties as string[] | null | undefined) ?? null;
  const list = account.mailboxes.filter((m) => !ids || ids.includes(m.id));
  const notFound = ids ? ids.filter((id) => !account.mailboxes.some((m) => m.id === id)) : [];
  const full = (m: (typeof list)[number]): Args => {
    const inBox = [...account.emails.values()].filter((e) => e.mailboxIds.has(m.id));
    return {
      id: m.id,
      name: m.name,
      parentId: null,
      role: m.role,
      sortOrder: m.sortOrder,
      totalEmails: inBox.length,
      unreadEmails: inBox.filter((e) => !e.keywords.has('$seen')).length,
      totalThreads: new Set(inBox.map((e) => e.threadId)).size,
      unreadThreads: new Set(inBox.filter((e) => !e.keywords.has('$seen')).map((e) => e.threadId)).size,
      isSubscribed: true,
    };
  };
  const shaped = list.map((m) => {
    const all = full(m);
    return properties ? Object.fromEntries(['id', ...properties].map((p) => [p, all[p] ?? null])) : all;
  });
  return { state: account.state, list: shaped, notFound, accountId: account.user };
}

export function emailGet(account: FakeAccount, args: Args): Args {
  if (!Array.isArray(args.ids)) throw new MethodError({ type: 'requestTooLarge', description: 'ids must be specified' });
  const properties = (args.properties as string[] | null | undefined) ?? DEFAULT_PROPERTIES;
  const bad = invalidProperty(properties);
  if (bad) throw invalid(bad);
  const badBody = invalidBodyProperty((args.bodyProperties as string[] | undefined) ?? []);
  if (badBody) throw invalid(badBody);
  const list: Args[] = [];
  const notFound: string[] = [];
  for (const id of args.ids as string[]) {
    const email = account.emails.get(id);
    if (email) list.push(renderEmail(email, properties, args));
    else notFound.push(id);
  }
  return { state: account.state, list, notFound, accountId: account.user };
}

function matches(account: FakeAccount, email: StoredEmail, filter: Args | null | undefined): boolean {
  if (!filter) return true;
  if (typeof filter.operator === 'string') {
    const conditions = (filter.conditions as Args[]) ?? [];
    if (filter.operator === 'AND') return conditions.every((c) => matches(account, email, c));
    if (filter.operator === 'OR') return conditions.some((c) => matches(account, email, c));
    return !conditions.some((c) => matches(account, email, c));
  }
  const header = (name: string) => asText(headerValue(email.root.headers, name) ?? '').toLowerCase();
  for (const [key, value] of Object.entries(filter)) {
    const text = String(value).toLowerCase();
    const ok =
      key === 'inMailbox'
        ? email.mailboxIds.has(String(value))
        : key === 'inMailboxOtherThan'
          ? [...email.mailboxIds].some((m) => !(value as string[]).includes(m))
          : key === 'hasKeyword'
            ? email.keywords.has(text)
            : key === 'notKeyword'
              ? !email.keywords.has(text)
              : key === 'before'
                ? email.receivedAt.getTime() < Date.parse(String(value))
                : key === 'after'
                  ? email.receivedAt.getTime() >= Date.parse(String(value))
                  : ['from', 'to', 'cc', 'bcc', 'subject'].includes(key)
                    ? header(key).includes(text)
                    : key === 'text'
                      ? email.raw.toString('utf8').toLowerCase().includes(text)
                      : (() => {
                          throw invalid(`filter/${key}`);
                        })();
    if (!ok) return false;
  }
  return true;
}

function compare(sort: Array<{ property: string; isAscending?: boolean }>): (a: StoredEmail, b: StoredEmail) => number {
  return (a, b) => {
    for (const s of sort) {
      const key = (e: StoredEmail): number | string =>
        s.property === 'receivedAt'
          ? e.receivedAt.getTime()
          : s.property === 'size'
            ? e.raw.length
            : s.property === 'id'
              ? e.id
              : asText(headerValue(e.root.headers, s.property) ?? '');
      const [x, y] = [key(a), key(b)];
      if (x !== y) return (x < y ? -1 : 1) * (s.isAscending === false ? -1 : 1);
    }
    // Equal keys: the later arrival first (Cyrus breaks ties by UID, newest first).
    return b.order - a.order;
  };
}

export function emailQuery(account: FakeAccount, args: Args): Args {
  const filter = args.filter as Args | null | undefined;
  for (const key of ['inMailbox'] as const) {
    if (filter && typeof filter[key] === 'string' && !account.mailbox(filter[key])) throw invalid(`filter/${key}`);
  }
  const sort = (args.sort as Array<{ property: string; isAscending?: boolean }> | undefined) ?? [{ property: 'receivedAt', isAscending: false }];
  let found = [...account.emails.values()].filter((e) => matches(account, e, filter)).sort(compare(sort));
  if (args.collapseThreads === true) {
    const seen = new Set<string>();
    found = found.filter((e) => !seen.has(e.threadId) && seen.add(e.threadId));
  }
  const ids = found.map((e) => e.id);
  let position = typeof args.position === 'number' ? args.position : 0;
  if (typeof args.anchor === 'string') {
    const at = ids.indexOf(args.anchor);
    if (at < 0) {
      if (ids.length > 0) throw new MethodError({ type: 'anchorNotFound' });
    } else position = Math.max(0, at + (typeof args.anchorOffset === 'number' ? args.anchorOffset : 0));
  } else if (position < 0) position = Math.max(0, ids.length + position);
  const limit = typeof args.limit === 'number' ? args.limit : ids.length;
  const result: Args = {
    sort,
    queryState: `${account.state}:0`,
    canCalculateChanges: true,
    position: Math.min(position, ids.length),
    ids: ids.slice(position, position + limit),
    collapseThreads: args.collapseThreads === true,
    accountId: account.user,
  };
  if (args.calculateTotal === true) result.total = ids.length;
  return result;
}

export function emailChanges(account: FakeAccount, args: Args): Args {
  const since = typeof args.sinceState === 'string' ? args.sinceState : '';
  if (!/^\d+$/.test(since)) throw invalid('sinceState');
  if (args.maxChanges !== undefined && args.maxChanges !== null && !(Number(args.maxChanges) > 0)) throw invalid('maxChanges');
  const sinceModseq = Number(since);
  if (sinceModseq < account.historyFloor) throw new MethodError({ type: 'cannotCalculateChanges' });
  const changed: Array<{ id: string; modseq: number; kind: 'created' | 'updated' | 'destroyed' }> = [];
  for (const e of account.emails.values()) {
    if (e.modseq > sinceModseq) changed.push({ id: e.id, modseq: e.modseq, kind: e.createdModseq > sinceModseq ? 'created' : 'updated' });
  }
  for (const [id, modseq] of account.destroyed) if (modseq > sinceModseq) changed.push({ id, modseq, kind: 'destroyed' });
  changed.sort((a, b) => a.modseq - b.modseq);
  const max = typeof args.maxChanges === 'number' ? args.maxChanges : Infinity;
  const page = changed.slice(0, max);
  const hasMoreChanges = page.length < changed.length;
  // A state the server never issued (ahead of it) answers "no changes" with the current, lower state, as Cyrus does.
  const newState = hasMoreChanges ? String(page[page.length - 1].modseq) : account.state;
  const of = (kind: string) => page.filter((c) => c.kind === kind).map((c) => c.id);
  return { oldState: since, newState, hasMoreChanges, created: of('created'), updated: of('updated'), destroyed: of('destroyed'), accountId: account.user };
}

export function identityGet(account: FakeAccount): Args {
  return { state: '0', list: [{ id: account.user, name: '', email: account.user, mayDelete: false }], notFound: [], accountId: account.user };
}

export function threadGet(account: FakeAccount, args: Args): Args {
  const ids = (args.ids as string[] | undefined) ?? [];
  const emails = [...account.emails.values()].sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime() || a.order - b.order);
  const list = ids.map((id) => ({ id, emailIds: emails.filter((e) => e.threadId === id).map((e) => e.id) })).filter((t) => t.emailIds.length > 0);
  return { state: account.state, list, notFound: ids.filter((id) => !list.some((t) => t.id === id)), accountId: account.user };
}
