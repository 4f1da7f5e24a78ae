/**
 * Sending mail (RFC 8621 §7), the way the test recipe verified on Cyrus: the message is created as a
 * draft, submitted, and moved to Sent by onSuccessUpdateEmail, all in ONE request; a submission the
 * server refuses leaves no draft behind (it is destroyed straight away).
 */
import { responseFor, type JmapClient } from './client.js';
import { JmapProtocolError } from './errors.js';
import { SUBMISSION_CAPABILITY, type Email, type MethodResponse, type SetError } from './types.js';

const USING = [SUBMISSION_CAPABILITY];

export interface Identity {
  id: string;
  email: string;
  name: string;
}

/** What a submission needs to know about the account, and the email being answered (if any). */
export interface SendSetup {
  draftsId: string;
  sentId: string;
  /** Mailboxes whose mail the CRM leaves out (trash, junk, drafts), for mapping the sent email. */
  excludedIds: string[];
  identity: Identity;
  /** The email being replied to, as the server has it; undefined when it is gone. */
  original?: Email;
}

export const REPLY_PROPERTIES = ['id', 'messageId', 'inReplyTo', 'references', 'subject', 'from', 'to', 'cc', 'replyTo', 'sender'];

/**
 * Mailboxes, identities and (for a reply) the original's headers in one request. The identity is
 * the one whose address is `fromAddress`, else the first one.
 */
export async function prepareSend(client: JmapClient, accountId: string, fromAddress: string, originalId?: string): Promise<SendSetup> {
  const calls: Array<[string, Record<string, unknown>, string]> = [
    ['Mailbox/get', { accountId, ids: null, properties: ['id', 'role'] }, 'm'],
    ['Identity/get', { accountId }, 'i'],
  ];
  if (originalId) calls.push(['Email/get', { accountId, ids: [originalId], properties: REPLY_PROPERTIES }, 'o']);
  const responses = await client.call(calls, { throwOnMethodError: true, using: USING });
  const boxes = (responseFor(responses, 'm', 'Mailbox/get').list ?? []) as Array<{ id: string; role?: string | null }>;
  const byRole = (role: string) => boxes.find((b) => b.role?.toLowerCase() === role)?.id;
  const draftsId = byRole('drafts');
  const sentId = byRole('sent');
  if (!draftsId || !sentId) throw new JmapProtocolError('The mail account has no Drafts or Sent mailbox');
  const identities = (responseFor(responses, 'i', 'Identity/get').list ?? []) as Identity[];
  const wanted = fromAddress.toLowerCase();
  const identity = identities.find((i) => i.email?.toLowerCase() === wanted) ?? identities[0];
  if (!identity) throw new JmapProtocolError('The mail account has no sending identity');
  const original = originalId ? ((responseFor(responses, 'o', 'Email/get').list ?? []) as Email[])[0] : undefined;
  const excludedIds = boxes.filter((b) => ['trash', 'junk', 'drafts'].includes(b.role?.toLowerCase() ?? '')).map((b) => b.id);
  return { draftsId, sentId, excludedIds, identity, original };
}

export interface Envelope {
  mailFrom: string;
  rcptTo: string[];
}

export type SubmitOutcome =
  /** Sent and moved to Sent; `email` is the stored message as Email/get returned it. */
  | { ok: true; emailId: string; submissionId: string; email?: Email }
  /** The server refused to create the message (quota, size, invalid property): nothing was sent. */
  | { ok: false; stage: 'email'; error: SetError }
  /** The submission was refused: nothing was sent; the draft was destroyed unless `draftLeft`. */
  | { ok: false; stage: 'submission'; error: SetError; draftLeft: boolean };

/**
 * Email/set (create the draft) + EmailSubmission/set (send it; on success it moves to Sent and loses
 * $draft) + Email/get of the result with `properties`, in one request.
 */
/**
 * Email/get arguments for reading a sent message back: `properties` and any other Email/get argument
 * (bodyProperties, fetchTextBodyValues, maxBodyValueBytes), passed to the mail server as they are.
 */
export type EmailReadArgs = { properties: readonly string[] } & Record<string, unknown>;

export async function createAndSubmit(
  client: JmapClient,
  accountId: string,
  setup: SendSetup,
  { draft, envelope }: { draft: Record<string, unknown>; envelope: Envelope },
  get: EmailReadArgs,
): Promise<SubmitOutcome> {
  const create = { ...draft, mailboxIds: { [setup.draftsId]: true }, keywords: { $draft: true, $seen: true } };
  const responses = await client.call(
    [
      ['Email/set', { accountId, create: { d1: create } }, 'e'],
      [
        'EmailSubmission/set',
        {
          accountId,
          create: { s1: { identityId: setup.identity.id, emailId: '#d1', envelope: toEnvelope(envelope) } },
          onSuccessUpdateEmail: { '#s1': { [`mailboxIds/${setup.draftsId}`]: null, [`mailboxIds/${setup.sentId}`]: true, 'keywords/$draft': null } },
        },
        's',
      ],
      ['Email/get', { accountId, ids: ['#d1'], ...get }, 'g'],
    ],
    { using: USING },
  );
  const emailSet = responseFor(responses, 'e', 'Email/set');
  const created = (emailSet.created as Record<string, { id?: string }> | null)?.d1;
  if (!created?.id) {
    const error = (emailSet.notCreated as Record<string, SetError> | null)?.d1 ?? { type: 'unknown' };
    return { ok: false, stage: 'email', error };
  }
  const submission = submissionResult(responses);
  if ('error' in submission) {
    const draftLeft = !(await destroyQuietly(client, accountId, created.id));
    return { ok: false, stage: 'submission', error: submission.error, draftLeft };
  }
  const got = responses.find((r) => r[2] === 'g' && r[0] === 'Email/get');
  const email = ((got?.[1].list ?? []) as Email[])[0];
  return { ok: true, emailId: created.id, submissionId: submission.id, email };
}

/** The submission's id, or its SetError (a method-level error counts as one: nothing was sent). */
function submissionResult(responses: MethodResponse[]): { id: string } | { error: SetError } {
  const mine = responses.filter((r) => r[2] === 's');
  const answer = mine.find((r) => r[0] === 'EmailSubmission/set') ?? mine.find((r) => r[0] === 'error');
  if (!answer) return { error: { type: 'serverFail', description: 'no EmailSubmission/set answer' } };
  if (answer[0] === 'error') return { error: { ...(answer[1] as SetError), type: typeof answer[1].type === 'string' ? answer[1].type : 'serverFail' } };
  const created = (answer[1].created as Record<string, { id?: string }> | null)?.s1;
  if (created?.id) return { id: created.id };
  return { error: (answer[1].notCreated as Record<string, SetError> | null)?.s1 ?? { type: 'serverFail' } };
}

async function destroyQuietly(client: JmapClient, accountId: string, emailId: string): Promise<boolean> {
  try {
    const r = await client.callOne<{ destroyed?: string[] | null }>('Email/set', { accountId, destroy: [emailId] });
    return (r.destroyed ?? []).includes(emailId);
  } catch {
    return false;
  }
}

function toEnvelope(e: Envelope) {
  return { mailFrom: { email: e.mailFrom }, rcptTo: e.rcptTo.map((email) => ({ email })) };
}

/*
 * A send in two requests, for work that must go out once across crashes (scheduled sends,
 * docs/adr/0146-scheduled-send.md): the message is created in Drafts first and its id recorded by the
 * caller; only then is it submitted. A recovery asks submissionState about that id: in Sent (or
 * submitted) means it went, still a draft without a submission means it did not (yet).
 */

/** Email/set create in Drafts; answers the new email's id, or the server's refusal (nothing was sent). */
export async function createDraft(
  client: JmapClient,
  accountId: string,
  setup: SendSetup,
  draft: Record<string, unknown>,
): Promise<{ ok: true; emailId: string } | { ok: false; stage: 'email'; error: SetError }> {
  const create = { ...draft, mailboxIds: { [setup.draftsId]: true }, keywords: { $draft: true, $seen: true } };
  const set = await client.callOne<{ created?: Record<string, { id?: string }> | null; notCreated?: Record<string, SetError> | null }>(
    'Email/set',
    { accountId, create: { d1: create } },
    { using: USING },
  );
  const id = set.created?.d1?.id;
  if (id) return { ok: true, emailId: id };
  return { ok: false, stage: 'email', error: set.notCreated?.d1 ?? { type: 'unknown' } };
}

/** EmailSubmission/set of a draft made by createDraft, moved to Sent on success, and Email/get of it: one request. */
export async function submitDraft(
  client: JmapClient,
  accountId: string,
  setup: SendSetup,
  { emailId, envelope }: { emailId: string; envelope: Envelope },
  get: EmailReadArgs,
): Promise<SubmitOutcome> {
  const responses = await client.call(
    [
      [
        'EmailSubmission/set',
        {
          accountId,
          create: { s1: { identityId: setup.identity.id, emailId, envelope: toEnvelope(envelope) } },
          onSuccessUpdateEmail: { '#s1': { [`mailboxIds/${setup.draftsId}`]: null, [`mailboxIds/${setup.sentId}`]: true, 'keywords/$draft': null } },
        },
        's',
      ],
      ['Email/get', { accountId, ids: [emailId], ...get }, 'g'],
    ],
    { using: USING },
  );
  const submission = submissionResult(responses);
  if ('error' in submission) return { ok: false, stage: 'submission', error: submission.error, draftLeft: true };
  const got = responses.find((r) => r[2] === 'g' && r[0] === 'Email/get');
  return { ok: true, emailId, submissionId: submission.id, email: ((got?.[1].list ?? []) as Email[])[0] };
}

/** What became of a message created by createDraft, as the mail server has it now. */
export type SubmissionState =
  /** It went: moved out of Drafts (onSuccessUpdateEmail) or a submission exists for it. */
  | { state: 'sent'; email: Email; submissionId?: string }
  /** Still a draft and no submission of it: it did not go (or its submission is still under way). */
  | { state: 'draft' }
  /** No such message (destroyed, or never created). */
  | { state: 'gone' };

export async function submissionState(client: JmapClient, accountId: string, setup: SendSetup, emailId: string, get: EmailReadArgs): Promise<SubmissionState> {
  const properties = [...new Set([...get.properties, 'mailboxIds', 'keywords'])];
  const responses = await client.call(
    [
      ['Email/get', { accountId, ids: [emailId], ...get, properties }, 'g'],
      ['EmailSubmission/query', { accountId, filter: { emailIds: [emailId] } }, 'q'],
    ],
    { using: USING },
  );
  const email = ((responseFor(responses, 'g', 'Email/get').list ?? []) as Array<Email & { mailboxIds?: Record<string, boolean>; keywords?: Record<string, boolean> }>)[0];
  if (!email) return { state: 'gone' };
  // A server without EmailSubmission/query answers an error for that call: the mailboxes still tell.
  const query = responses.find((r) => r[2] === 'q' && r[0] === 'EmailSubmission/query');
  const submissionId = ((query?.[1].ids ?? []) as string[])[0];
  const inDrafts = email.mailboxIds?.[setup.draftsId] === true;
  const draft = email.keywords?.$draft === true;
  if (submissionId !== undefined || !draft || !inDrafts) return { state: 'sent', email, ...(submissionId ? { submissionId } : {}) };
  return { state: 'draft' };
}
