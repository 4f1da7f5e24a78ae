/**
 * The whole timeline as the API's own lists answer it, computed without the timeline's query: the mail
 * of the subject's contacts and people (GET /api/emails?contactId= and ?personId=), one item per message
 * by the contract's rule (newest copy, then one in a mailbox the caller owns, then the lowest id), the
 * tasks the caller sees linked to the subject (GET /api/tasks?assignee=any&status=all) and the caller's
 * follow-ups on those contacts (GET /api/follow-ups). Ordered as docs/contract.md §4.4d, 6. says.
 */
import { expect } from 'chai';
import type { Member } from '../tasks/support.js';

const RANK = { email: 0, follow_up: 1, task: 2 } as const;

export interface Expected {
  key: string;
  at: string;
  rank: number;
  id: string;
}

/** Every item of a paged list (limit 100, page after page until a short one). */
async function all<T>(who: Member, path: string): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const res = await who.get(`${path}${path.includes('?') ? '&' : '?'}limit=100&page=${page}`);
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).to.equal(200);
    const batch = res.body.data.items as T[];
    items.push(...batch);
    if (batch.length < 100) return items;
  }
}

interface EmailSummary {
  id: string;
  emailAccountId: string;
  date: string;
}

interface Subject {
  people: string[];
  /** The people's addresses, as the caller sees them. */
  addresses: Set<string>;
  /** The company's contacts in mailboxes the caller reads (none for a person). */
  contacts: Array<{ id: string; emailAccountId: string }>;
}

type Mailboxes = { readable: string[]; owned: string[] };

/** The emails of the subject, one per message: the copy no other copy is preferred to. */
async function emailItems(who: Member, s: Subject, mailboxes: Mailboxes, messageIds: ReadonlyMap<string, string | null>): Promise<Expected[]> {
  const emails = new Map<string, EmailSummary>();
  for (const c of s.contacts) for (const e of await all<EmailSummary>(who, `/api/emails?contactId=${c.id}`)) emails.set(e.id, e);
  for (const id of s.people) for (const e of await all<EmailSummary>(who, `/api/emails?personId=${id}`)) emails.set(e.id, e);
  const owned = (e: EmailSummary) => mailboxes.owned.includes(e.emailAccountId);
  const preferred = (a: EmailSummary, b: EmailSummary): boolean => (a.date !== b.date ? a.date > b.date : owned(a) !== owned(b) ? owned(a) : a.id < b.id);
  const shown = new Map<string, EmailSummary>();
  for (const e of emails.values()) {
    expect(messageIds.has(e.id), `an email the test did not store: ${e.id}`).to.equal(true);
    const message = messageIds.get(e.id) ?? `none:${e.id}`;
    const other = shown.get(message);
    if (!other || preferred(e, other)) shown.set(message, e);
  }
  return [...shown.values()].map((e) => ({ key: `email:${e.id}`, at: e.date, rank: RANK.email, id: e.id }));
}

/** The tasks the caller sees linked to the subject (a company: to it or to one of its people). */
async function taskItems(who: Member, linked: (l: { type: string; id: string } | null) => boolean): Promise<Expected[]> {
  const tasks = await all<{ id: string; status: string; dueAt: string; completedAt: string | null; link: { type: string; id: string } | null }>(
    who,
    '/api/tasks?assignee=any&status=all',
  );
  return tasks.filter((x) => linked(x.link)).map((task) => ({ key: `task:${task.id}`, at: task.status === 'done' ? task.completedAt! : task.dueAt, rank: RANK.task, id: task.id }));
}

/** The caller's follow-ups on the subject's contacts (a company's own, and its people's in readable mailboxes). */
async function followUpItems(who: Member, s: Subject, mailboxes: Mailboxes): Promise<Expected[]> {
  const contactIds = new Set(s.contacts.map((c) => c.id));
  const followUps = await all<{ id: string; dueAt: string; contact: { id: string; email: string; emailAccountId: string } }>(who, '/api/follow-ups?status=all');
  return followUps
    .filter((f) => contactIds.has(f.contact.id) || (s.addresses.has(f.contact.email) && mailboxes.readable.includes(f.contact.emailAccountId)))
    .map((f) => ({ key: `follow_up:${f.id}`, at: f.dueAt, rank: RANK.follow_up, id: f.id }));
}

/**
 * What `who` should see of a person or a company; `mailboxes`: those they read and those they own;
 * `messageIds` the Message-ID of each email the test stored (null: none).
 */
export async function expectedTimeline(
  who: Member,
  subject: { person: string } | { company: string },
  mailboxes: Mailboxes,
  messageIds: ReadonlyMap<string, string | null>,
): Promise<Expected[]> {
  const people = 'person' in subject ? [subject.person] : (await all<{ id: string }>(who, `/api/people?companyId=${subject.company}`)).map((p) => p.id);
  const addresses = new Set<string>();
  for (const id of people) {
    const res = await who.get(`/api/people/${id}`);
    expect(res.status).to.equal(200);
    for (const email of res.body.data.person.emails as string[]) addresses.add(email);
  }
  const contacts =
    'company' in subject
      ? (await all<{ id: string; emailAccountId: string }>(who, `/api/contacts?companyId=${subject.company}`)).filter((c) => mailboxes.readable.includes(c.emailAccountId))
      : [];
  const s: Subject = { people, addresses, contacts };
  const linked = (l: { type: string; id: string } | null): boolean =>
    l !== null && ((l.type === 'person' && people.includes(l.id)) || ('company' in subject && l.type === 'company' && l.id === subject.company));
  const items = [...(await emailItems(who, s, mailboxes, messageIds)), ...(await taskItems(who, linked)), ...(await followUpItems(who, s, mailboxes))];
  // Newest first, then emails, follow-ups, tasks, then the id (ISO instants of one form compare as text).
  return items.sort((a, b) => (a.at !== b.at ? (a.at > b.at ? -1 : 1) : a.rank !== b.rank ? a.rank - b.rank : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The whole timeline walked by cursor, `limit` items a page (every page checked for hasNext and nextCursor agreeing). */
export async function walkByCursor(who: Member, path: string, limit: number, most: number): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages <= most; pages++) {
    const res = await who.get(`${path}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const items = res.body.data.items as Array<{ type: string; email?: { id: string }; task?: { id: string }; followUp?: { id: string } }>;
    keys.push(...items.map((i) => `${i.type}:${i.email?.id ?? i.task?.id ?? i.followUp?.id}`));
    cursor = res.body.data.pagination.nextCursor as string | null;
    expect(res.body.data.pagination.hasNext).to.equal(cursor !== null);
    if (cursor === null) return keys;
    expect(items, 'a page before the last is full').to.have.length(limit);
  }
  throw new Error(`${path}: more than ${most} pages of ${limit}`);
}
