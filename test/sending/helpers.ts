/**
 * Fixtures of the sending tests: real mail users on the test Cyrus, whose mail really travels
 * Cyrus → SMTP relay (scripts/jmap/smtp-relay.mjs) → LMTP → the recipient's mailbox.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { SUBMISSION_CAPABILITY, type Email, type JmapClient } from '../../src/jmap/index.js';
import type { Express } from 'express';
import { testApp, testContext } from '../support/harness.js';
import { lookAfterMarker } from '../support/absence.js';
import { until } from '../support/poll.js';
import { crmUser, freshMailUser, jmapAs, linkViaApi, type CrmUser, type MailUser } from '../sync/helpers.js';

export { crmUser, freshMailUser, jmapAs, linkViaApi, put, type CrmUser, type MailUser } from '../sync/helpers.js';

/** The world of a sending test: fresh mail users alice and bob, a CRM user with alice's account linked over HTTP. */
export interface SendingWorld {
  app: Express;
  ctx: AppContext;
  alice: MailUser;
  bob: MailUser;
  owner: CrmUser;
  accountId: string;
}

export async function sendingWorld(): Promise<SendingWorld> {
  const [app, ctx] = await Promise.all([testApp(), testContext()]);
  const [alice, bob] = await Promise.all([freshMailUser('alice'), freshMailUser('bob')]);
  const owner = await crmUser();
  return { app, ctx, alice, bob, owner, accountId: await linkViaApi(app, ctx, owner, alice) };
}

export const FULL_PROPERTIES = [
  'id',
  'blobId',
  'threadId',
  'mailboxIds',
  'keywords',
  'subject',
  'from',
  'to',
  'cc',
  'bcc',
  'messageId',
  'inReplyTo',
  'references',
  'attachments',
  'bodyValues',
  'textBody',
  'htmlBody',
  'receivedAt',
];

/** Every email of the mail user with this subject (server side), newest first. */
export async function serverEmails(mail: MailUser, subject: string): Promise<Email[]> {
  const client = jmapAs(mail);
  const accountId = await client.mailAccountId();
  const responses = await client.call(
    [
      ['Email/query', { accountId, filter: null, sort: [{ property: 'receivedAt', isAscending: false }], limit: 500 }, 'q'],
      [
        'Email/get',
        { accountId, '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' }, properties: FULL_PROPERTIES, fetchTextBodyValues: true, fetchHTMLBodyValues: true },
        'g',
      ],
    ],
    { throwOnMethodError: true },
  );
  const list = (responses.find((r) => r[2] === 'g')![1].list ?? []) as Email[];
  return list.filter((e) => e.subject === subject);
}

/** Waits until the mail user's mailbox holds (at least) `count` emails with this subject; fails after `timeoutMs`. */
export async function waitForServerEmails(mail: MailUser, subject: string, count = 1, timeoutMs = 10_000): Promise<Email[]> {
  let found: Email[] = [];
  await until(async () => (found = await serverEmails(mail, subject)).length >= count, { what: `${count} email(s) "${subject}"`, timeoutMs, intervalMs: 100 });
  return found;
}

let markerSender: Promise<MailUser> | undefined;

/** A marker for emailsAfterMarker sent by the CRM from `accountId` to `to`: the path of the send under test. */
export function markerViaCrm(app: Express, owner: CrmUser, accountId: string, to: string): (markerSubject: string) => Promise<void> {
  return async (markerSubject) => {
    const res = await owner.as(request(app).post('/api/emails')).send({ emailAccountId: accountId, to, subject: markerSubject, text: 'Značka' });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  };
}

/**
 * The recipient's emails with `subject`, looked at once a marker email sent after the act under test
 * has arrived (lookAfterMarker): for "nothing was delivered" (expect none) and "sent once" (expect
 * one). The relay delivers in order and answers a submission only once it is in the mailbox, so what
 * the act sent is there before the marker. `sendMarker` sends the marker subject down the act's own
 * path (the CRM, the same account); by default it comes straight from another mail user via Cyrus.
 */
export async function emailsAfterMarker(recipient: MailUser, subject: string, sendMarker?: (markerSubject: string) => Promise<unknown>): Promise<Email[]> {
  const marker = uniqueSubject('Značka');
  const send =
    sendMarker ??
    (async (markerSubject: string) => {
      markerSender ??= freshMailUser('marker');
      await sendFromMailUser(await markerSender, recipient.user, markerSubject);
    });
  return lookAfterMarker({
    what: `the marker email "${marker}" to ${recipient.user}`,
    sendMarker: () => send(marker),
    markerSeen: async () => (await serverEmails(recipient, marker)).length > 0,
    look: () => serverEmails(recipient, subject),
  });
}

export async function mailboxRoleIds(client: JmapClient): Promise<Record<string, string>> {
  const accountId = await client.mailAccountId();
  const r = await client.callOne<{ list: Array<{ id: string; role: string | null }> }>('Mailbox/get', { accountId, ids: null, properties: ['id', 'role'] });
  return Object.fromEntries(r.list.filter((m) => m.role).map((m) => [m.role!, m.id]));
}

/** How many emails sit in the mailbox with this role. */
export async function countInRole(mail: MailUser, role: string): Promise<number> {
  const client = jmapAs(mail);
  const accountId = await client.mailAccountId();
  const ids = await mailboxRoleIds(client);
  const r = await client.callOne<{ ids: string[] }>('Email/query', { accountId, filter: { inMailbox: ids[role] }, limit: 500 });
  return r.ids.length;
}

/** Downloads a blob of the mail user's account as bytes (test side, straight from Cyrus). */
export async function serverBlob(mail: MailUser, blobId: string): Promise<Buffer> {
  const client = jmapAs(mail);
  const session = await client.session();
  const url = session
    .downloadUrl!.replace('{accountId}', encodeURIComponent(mail.user))
    .replace('{blobId}', blobId)
    .replace('{name}', 'x')
    .replace('{type}', 'application%2Foctet-stream');
  const res = await fetch(url, { headers: { Authorization: `Basic ${Buffer.from(`${mail.user}:${mail.pass}`).toString('base64')}` } });
  expect(res.status).to.equal(200);
  return Buffer.from(await res.arrayBuffer());
}

/**
 * The mail user sends an email (with one attachment, if given) to `to`, through Cyrus's own
 * submission (JMAP Blob upload + Email/set + EmailSubmission/set, written out here so the fixture
 * does not depend on the code under test).
 */
export async function sendFromMailUser(mail: MailUser, to: string, subject: string, file?: { name: string; type: string; bytes: Buffer }): Promise<void> {
  const client = jmapAs(mail);
  const accountId = await client.mailAccountId();
  const attachments = file ? [{ blobId: await uploadBlob(mail, accountId, file), type: file.type, name: file.name, disposition: 'attachment' }] : [];
  const roles = await mailboxRoleIds(client);
  const responses = await client.call(
    [
      [
        'Email/set',
        {
          accountId,
          create: {
            d: {
              mailboxIds: { [roles.drafts]: true },
              keywords: { $draft: true },
              from: [{ email: mail.user }],
              to: [{ email: to }],
              subject,
              bodyValues: { t: { value: file ? `Posielam súbor ${file.name}.` : 'Bez prílohy.' } },
              textBody: [{ partId: 't', type: 'text/plain' }],
              attachments,
            },
          },
        },
        'e',
      ],
      [
        'EmailSubmission/set',
        {
          accountId,
          create: { s: { identityId: mail.user, emailId: '#d', envelope: { mailFrom: { email: mail.user }, rcptTo: [{ email: to }] } } },
          onSuccessUpdateEmail: { '#s': { [`mailboxIds/${roles.drafts}`]: null, [`mailboxIds/${roles.sent}`]: true, 'keywords/$draft': null } },
        },
        's',
      ],
    ],
    { throwOnMethodError: true, using: [SUBMISSION_CAPABILITY] },
  );
  const created = responses.find((r) => r[0] === 'EmailSubmission/set')![1].created as Record<string, unknown> | null;
  expect(created?.s, JSON.stringify(responses)).to.exist;
}

async function uploadBlob(mail: MailUser, accountId: string, file: { type: string; bytes: Buffer }): Promise<string> {
  const session = await jmapAs(mail).session();
  const auth = `Basic ${Buffer.from(`${mail.user}:${mail.pass}`).toString('base64')}`;
  const up = await fetch(session.uploadUrl!.replace('{accountId}', encodeURIComponent(accountId)), {
    method: 'POST',
    headers: { Authorization: auth, 'Content-Type': file.type },
    body: new Uint8Array(file.bytes),
  });
  expect(up.status).to.equal(201);
  return ((await up.json()) as { blobId: string }).blobId;
}

export function uniqueSubject(prefix: string): string {
  return `${prefix} ${randomBytes(4).toString('hex')}`;
}

/** Random bytes that no format detector takes for anything (no magic at the start). */
export function randomFile(size: number): Buffer {
  const bytes = randomBytes(size);
  bytes.write('CRMTEST!', 0, 'latin1');
  return bytes;
}

export async function auditRecords(ctx: AppContext, userId: string, action: string): Promise<Array<{ details: Record<string, unknown> }>> {
  return ctx.db.sequelize.query('SELECT details FROM audit_logs WHERE user_id = $1 AND action = $2 ORDER BY created_at', {
    bind: [userId, action],
    type: QueryTypes.SELECT,
  });
}

export async function rowsWithMessageId(ctx: AppContext, accountId: string, messageId: string): Promise<number> {
  const [row] = await ctx.db.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM emails WHERE email_account_id = $1 AND message_id = $2', {
    bind: [accountId, messageId],
    type: QueryTypes.SELECT,
  });
  return row.n;
}
