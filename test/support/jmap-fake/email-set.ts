/**
 * Email/set and EmailSubmission/set of the JMAP fake: create (a message built as Cyrus builds it),
 * update by patch (keywords, mailboxes), destroy; submission with the test relay's hooks
 * (scripts/jmap/smtp-relay.mjs: refuse-*, reject-*, tempfail-*) answered in Cyrus's words, delivery into
 * the recipients' inboxes on the fake, and the implicit Email/set of onSuccessUpdateEmail.
 */
import { composeMessage, type ComposeInput } from './compose.js';
import { headerValue, type Address } from './mime.js';
import type { FakeAccount, StoredEmail } from './store.js';
import type { MethodResponse } from '../../../src/jmap/index.js';

export interface SetContext {
  account: FakeAccount;
  /** Creation id ("d1") → the id the server gave ("#d1" references it). */
  created: Map<string, string>;
  deliver(from: string, to: string[], email: StoredEmail): void;
}

type Args = Record<string, unknown>;
type SetError = Record<string, unknown>;
const MAX_ATTACHMENTS_BYTES = 10_485_760;

const resolveId = (ctx: SetContext, id: string) => (id.startsWith('#') ? (ctx.created.get(id.slice(1)) ?? id) : id);

export function emailSet(ctx: SetContext, args: Args): Args {
  const { account } = ctx;
  const oldState = account.state;
  const out: Record<string, Record<string, unknown> | null> & { destroyed: string[] | null } = {
    created: null,
    updated: null,
    destroyed: null,
    notCreated: null,
    notUpdated: null,
    notDestroyed: null,
  };
  const put = (key: string, id: string, value: unknown) => {
    const map = ((out as Record<string, Record<string, unknown> | null>)[key] ??= {});
    map[id] = value;
  };
  for (const [cid, object] of Object.entries((args.create as Record<string, Args> | undefined) ?? {})) {
    const result = createEmail(account, object);
    if ('error' in result) put('notCreated', cid, result.error);
    else {
      ctx.created.set(cid, result.email.id);
      put('created', cid, { id: result.email.id, blobId: result.email.blobId, threadId: result.email.threadId, size: result.email.raw.length });
    }
  }
  for (const [rawId, patch] of Object.entries((args.update as Record<string, Args> | undefined) ?? {})) {
    const id = resolveId(ctx, rawId);
    const error = updateEmail(account, id, patch);
    if (error) put('notUpdated', rawId, error);
    else put('updated', id, null);
  }
  for (const rawId of (args.destroy as string[] | undefined) ?? []) {
    const id = resolveId(ctx, rawId);
    if (account.destroy(id)) (out.destroyed ??= []).push(id);
    else put('notDestroyed', rawId, { type: 'notFound' });
  }
  return { oldState, newState: account.state, ...out, accountId: account.user };
}

function addresses(value: unknown): Address[] | null {
  return Array.isArray(value) ? (value as Array<{ name?: string | null; email: string }>).map((a) => ({ name: a.name ?? null, email: a.email })) : null;
}

function createEmail(account: FakeAccount, object: Args): { email: StoredEmail } | { error: SetError } {
  const mailboxIds = Object.keys((object.mailboxIds as Record<string, boolean> | undefined) ?? {});
  if (mailboxIds.length === 0 || mailboxIds.some((m) => !account.mailbox(m))) return { error: { type: 'invalidProperties', properties: ['mailboxIds'] } };
  const values = (object.bodyValues as Record<string, { value: string }> | undefined) ?? {};
  const textOf = (list: unknown) => {
    const part = (list as Array<{ partId: string }> | undefined)?.[0];
    return part ? (values[part.partId]?.value ?? '') : undefined;
  };
  const attachments: ComposeInput['attachments'] = [];
  const missing: string[] = [];
  for (const a of (object.attachments as Array<Record<string, string | null>> | undefined) ?? []) {
    const blob = a.blobId ? account.blob(a.blobId) : undefined;
    if (!blob) missing.push(String(a.blobId));
    else attachments.push({ content: blob.data, type: a.type ?? blob.type, name: a.name ?? null, disposition: a.disposition ?? 'attachment', cid: a.cid ?? null });
  }
  if (missing.length > 0) return { error: { type: 'blobNotFound', notFound: missing } };
  if (attachments.reduce((n, a) => n + a.content.length, 0) > MAX_ATTACHMENTS_BYTES) return { error: { type: 'tooLarge', maxSize: MAX_ATTACHMENTS_BYTES } };
  const extraHeaders = Object.entries(object)
    .filter(([key]) => key.startsWith('header:'))
    .map(([key, value]) => [key.split(':')[1], String(value)] as [string, string]);
  const raw = composeMessage({
    from: addresses(object.from),
    to: addresses(object.to),
    cc: addresses(object.cc),
    bcc: addresses(object.bcc),
    replyTo: addresses(object.replyTo),
    sender: addresses(object.sender),
    subject: (object.subject as string | undefined) ?? null,
    messageId: (object.messageId as string[] | undefined) ?? null,
    inReplyTo: (object.inReplyTo as string[] | undefined) ?? null,
    references: (object.references as string[] | undefined) ?? null,
    sentAt: (object.sentAt as string | undefined) ?? null,
    extraHeaders,
    text: textOf(object.textBody),
    html: textOf(object.htmlBody),
    attachments,
  });
  const keywords = Object.keys((object.keywords as Record<string, boolean> | undefined) ?? {});
  // Cyrus marks a message it built with attachments.
  if (attachments.length > 0) keywords.push('$hasattachment');
  const received = typeof object.receivedAt === 'string' ? new Date(object.receivedAt) : new Date();
  return { email: account.add(raw, mailboxIds, keywords, received) };
}

function updateEmail(account: FakeAccount, id: string, patch: Args): SetError | undefined {
  const email = account.emails.get(id);
  if (!email) return { type: 'notFound' };
  const mailboxes = new Set(email.mailboxIds);
  const keywords = new Set(email.keywords);
  for (const [path, value] of Object.entries(patch)) {
    const [property, key] = path.split('/', 2);
    if (property === 'keywords' && key === undefined) {
      keywords.clear();
      for (const k of Object.keys(value as Record<string, boolean>)) keywords.add(k.toLowerCase());
    } else if (property === 'keywords') {
      if (value === true) keywords.add(key.toLowerCase());
      else keywords.delete(key.toLowerCase());
    } else if (property === 'mailboxIds') {
      const ids = key === undefined ? Object.keys(value as Record<string, boolean>) : [key];
      if (ids.some((m) => !account.mailbox(m))) return { type: 'invalidProperties', properties: ['mailboxIds'] };
      if (key === undefined) mailboxes.clear();
      for (const m of ids) {
        if (key !== undefined && value !== true) mailboxes.delete(m);
        else mailboxes.add(m);
      }
    } else return { type: 'invalidProperties', properties: [property] };
  }
  if (mailboxes.size === 0) return { type: 'invalidProperties', properties: ['mailboxIds'] };
  email.mailboxIds = mailboxes;
  email.keywords = keywords;
  account.touch(email);
  return undefined;
}

const local = (address: string) => address.split('@')[0].toLowerCase();

/** What the relay answers a submission, in the words Cyrus passes on (contract suite: "submission refusals"). */
function relayRefusal(from: string, to: string[]): SetError | undefined {
  if (local(from).startsWith('refuse-')) return { type: 'forbiddenToSend', description: '5.7.1 Submission refused by policy (test hook)' };
  for (const [i, address] of to.entries()) {
    if (local(address).startsWith('reject-')) return { type: 'tooManyRecipients', maxRecipients: i };
    if (local(address).startsWith('tempfail-')) return { type: 'forbiddenToSend', description: '4.3.0 Temporary failure (test hook)' };
  }
  if (to.length === 0) return { type: 'noRecipients' };
  return undefined;
}

export function submissionSet(ctx: SetContext, args: Args, callId: string): MethodResponse[] {
  const { account } = ctx;
  const oldState = account.state;
  const created: Record<string, unknown> = {};
  const notCreated: Record<string, SetError> = {};
  for (const [cid, object] of Object.entries((args.create as Record<string, Args> | undefined) ?? {})) {
    const email = account.emails.get(resolveId(ctx, String(object.emailId)));
    if (!email) {
      notCreated[cid] = { type: 'invalidProperties', properties: ['emailId'] };
      continue;
    }
    if (object.identityId !== account.user) {
      notCreated[cid] = { type: 'invalidProperties', properties: ['identityId'] };
      continue;
    }
    const envelope = object.envelope as { mailFrom: { email: string }; rcptTo: Array<{ email: string }> } | undefined;
    const from = envelope?.mailFrom.email ?? account.user;
    const to = envelope?.rcptTo.map((r) => r.email) ?? [];
    const refusal = relayRefusal(from, to);
    if (refusal) {
      notCreated[cid] = refusal;
      continue;
    }
    ctx.deliver(from, to, email);
    const id = `S${++account.submissions}`;
    ctx.created.set(cid, email.id);
    created[cid] = { id, undoStatus: 'final', sendAt: new Date().toISOString().slice(0, 19) + 'Z' };
    account.modseq++;
  }
  const responses: MethodResponse[] = [
    [
      'EmailSubmission/set',
      {
        oldState,
        newState: account.state,
        created: Object.keys(created).length ? created : null,
        updated: null,
        destroyed: null,
        notCreated: Object.keys(notCreated).length ? notCreated : null,
        notUpdated: null,
        notDestroyed: null,
        accountId: account.user,
      },
      callId,
    ],
  ];
  // onSuccessUpdateEmail: an implicit Email/set answered under the same call id (RFC 8621 §7.5).
  const onSuccess = (args.onSuccessUpdateEmail as Record<string, Args> | undefined) ?? {};
  const update: Record<string, Args> = {};
  for (const [ref, patch] of Object.entries(onSuccess)) {
    const cid = ref.replace(/^#/, '');
    if (cid in created) update[ctx.created.get(cid)!] = patch;
  }
  responses.push(['Email/set', emailSet(ctx, { update }), callId]);
  return responses;
}

/** What the relay logs of a delivery (test/support/relay-log.ts reads the same fields). */
export function deliveryRecord(from: string, to: string[], email: StoredEmail): { from: string; to: string[]; messageId: string | null; subject: string | null } {
  const raw = (name: string) => {
    const value = headerValue(email.root.headers, name);
    return value === undefined ? null : value.replace(/\r\n[ \t]/g, ' ').trim();
  };
  return { from, to, messageId: raw('message-id'), subject: raw('subject') };
}
