/**
 * Shared fixtures of the sync tests: a fresh mail user per test file on the test Cyrus, messages put
 * there over IMAP, a JMAP client acting as that user (for Email/set), and sync services configured
 * like a second process would be.
 */
import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { Sql } from '../../src/db/sql.js';
import { sequelizeTransactions } from '../../src/db/transactions.js';
import { JmapClient } from '../../src/jmap/index.js';
import type { EmailAccount } from '../../src/models/index.js';
import { MailStoreRepository } from '../../src/sync/mail-store-repository.js';
import { SyncRepository } from '../../src/sync/sync-repository.js';
import { SyncService, type ReadStateWriteBack, type SyncServiceDeps, type SyncServiceOptions } from '../../src/sync/sync-service.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { appendMessage, buildMessage, createTestMailUser, testJmapSessionUrl, type MessageSpec } from '../support/imap.js';

/**
 * add-user.sh and IMAP APPEND must reach the same Cyrus as TEST_JMAP_SESSION_URL. The project's
 * server (scripts/jmap/start.sh, HTTP 18080) is the default; the shared reference server (HTTP 8080,
 * IMAP 1143, state in /tmp/crm-jmap-server) has the same layout, so only the ports and base differ.
 */
export function alignMailServerEnv(): void {
  const port = new URL(testJmapSessionUrl()).port;
  if (port === '8080' && !process.env.TEST_JMAP_IMAP_PORT) {
    process.env.TEST_JMAP_IMAP_PORT = '1143';
    process.env.JMAP_HTTP_PORT ??= '8080';
    process.env.JMAP_BASE ??= '/tmp/crm-jmap-server';
  }
}

export interface MailUser {
  user: string;
  pass: string;
}

export async function freshMailUser(prefix = 'sync'): Promise<MailUser> {
  alignMailServerEnv();
  return createTestMailUser(prefix);
}

export async function put(mail: MailUser, mailbox: string, spec: MessageSpec, flags: string[] = []): Promise<void> {
  await appendMessage({ user: mail.user, pass: mail.pass, mailbox, raw: buildMessage(spec), flags, internalDate: spec.date });
}

/** A JMAP client signed in as the mail user, for changing things on the server behind the CRM's back. */
export function jmapAs(mail: MailUser): JmapClient {
  return new JmapClient({ sessionUrl: testJmapSessionUrl(), credentials: { kind: 'basic', username: mail.user, password: mail.pass } });
}

export async function mailboxIdByRole(client: JmapClient, role: string): Promise<string> {
  const accountId = await client.mailAccountId();
  const r = await client.callOne<{ list: Array<{ id: string; role: string | null }> }>('Mailbox/get', { accountId, ids: null });
  const found = r.list.find((m) => m.role === role);
  if (!found) throw new Error(`no mailbox with role ${role}`);
  return found.id;
}

/** The server's Email id of the message with this Message-ID (without angle brackets). */
export async function emailIdByMessageId(client: JmapClient, messageId: string): Promise<string> {
  const accountId = await client.mailAccountId();
  const q = await client.callOne<{ ids: string[] }>('Email/query', { accountId, filter: null, limit: 1000 });
  const got = await client.callOne<{ list: Array<{ id: string; messageId: string[] | null }> }>('Email/get', {
    accountId,
    ids: q.ids,
    properties: ['id', 'messageId'],
  });
  const found = got.list.find((e) => e.messageId?.[0] === messageId);
  if (!found) throw new Error(`no email with Message-ID ${messageId}`);
  return found.id;
}

export async function emailSet(client: JmapClient, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const accountId = await client.mailAccountId();
  const r = await client.callOne<Record<string, unknown>>('Email/set', { accountId, ...args });
  for (const key of ['notUpdated', 'notDestroyed', 'notCreated']) {
    if (r[key] && Object.keys(r[key]).length > 0) throw new Error(`Email/set ${key}: ${JSON.stringify(r[key])}`);
  }
  return r;
}

/** A CRM user with a session, and a helper to call the API as them. */
export interface CrmUser {
  fixture: UserFixture;
  session: TestSession;
  as: (test: request.Test) => request.Test;
}

export async function crmUser(): Promise<CrmUser> {
  const fixture = await createUser({ password: 'Sync-Test-Pass-2024' });
  const session = await sessionFor(fixture);
  return { fixture, session, as: (t) => t.set('Authorization', session.bearer) };
}

/** Links the mail user through the API and waits for the sync it starts, so the test owns what follows. */
export async function linkViaApi(app: Express, ctx: AppContext, owner: CrmUser, mail: MailUser): Promise<string> {
  const res = await owner.as(request(app).post('/api/email-accounts')).send({ email: mail.user, emailPassword: mail.pass });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  await ctx.services.mailSync.whenIdle();
  return res.body.data.emailAccount.id as string;
}

/** The dependencies of a SyncService of this context (its database, email accounts and read-state pusher). */
export function syncDeps(ctx: AppContext, deps: { clientFor?: (a: EmailAccount) => JmapClient; readState?: ReadStateWriteBack } = {}): SyncServiceDeps {
  const { sequelize } = ctx.db;
  return {
    repository: new SyncRepository(new Sql(sequelize)),
    mailStore: new MailStoreRepository(new Sql(sequelize)),
    transactions: sequelizeTransactions(sequelize),
    logger: ctx.logger,
    clientFor: deps.clientFor ?? ((a) => ctx.services.emailAccounts.clientFor(a)),
    readState: deps.readState ?? ctx.services.readStatePusher,
  };
}

/** Another "process": its own instance id and tuning, the same database and email account service. */
export function otherSyncService(
  ctx: AppContext,
  options: SyncServiceOptions = {},
  deps: { clientFor?: (a: EmailAccount) => JmapClient; readState?: ReadStateWriteBack } = {},
): SyncService {
  return new SyncService(syncDeps(ctx, deps), options);
}

export interface StoredEmail {
  jmap_id: string;
  message_id: string | null;
  subject: string | null;
  contact_email: string;
  linked: string[];
  is_read: boolean;
  read_pending: boolean;
  thread_id: string | null;
  in_reply_to: string | null;
  from: string | null;
  to: string | null;
  body: string | null;
  date: Date | null;
}

/** Every email row of the account with its main contact's address and all linked addresses (sorted). */
export async function storedEmails(ctx: AppContext, accountId: string): Promise<StoredEmail[]> {
  return ctx.db.sequelize.query<StoredEmail>(
    `SELECT e.jmap_id, e.message_id, e.subject, c.email AS contact_email, e.is_read, e.read_pending, e.thread_id,
            e.in_reply_to, e."from", e."to", e.body, e.date,
            ARRAY(SELECT lc.email FROM email_contacts ec JOIN contacts lc ON lc.id = ec.contact_id
                   WHERE ec.email_id = e.id ORDER BY lc.email) AS linked
       FROM emails e JOIN contacts c ON c.id = e.contact_id
      WHERE e.email_account_id = $1 ORDER BY e.subject`,
    { bind: [accountId], type: QueryTypes.SELECT },
  );
}

/** Links whose copy of the email's date or read state differs from the email (the contact page sorts and filters by the copy). */
export async function staleLinks(ctx: AppContext, accountId: string): Promise<number> {
  const [row] = await ctx.db.sequelize.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM email_contacts l JOIN emails e ON e.id = l.email_id
      WHERE e.email_account_id = $1 AND (l.email_date IS DISTINCT FROM e.date OR l.is_read IS DISTINCT FROM e.is_read)`,
    { bind: [accountId], type: QueryTypes.SELECT },
  );
  return row.n;
}

export async function storedContacts(ctx: AppContext, accountId: string): Promise<Array<{ email: string; name: string | null; last_email_at: Date | null }>> {
  return ctx.db.sequelize.query('SELECT email, name, last_email_at FROM contacts WHERE email_account_id = $1 ORDER BY email', { bind: [accountId], type: QueryTypes.SELECT });
}

export async function syncState(ctx: AppContext, accountId: string): Promise<Record<string, unknown>> {
  const [row] = await ctx.db.sequelize.query<Record<string, unknown>>('SELECT * FROM mail_sync_states WHERE email_account_id = $1', {
    bind: [accountId],
    type: QueryTypes.SELECT,
  });
  return row;
}

/** An address on loopback where nothing listens: a mail server that is down. */
export async function closedPortUrl(): Promise<string> {
  const net = await import('node:net');
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/.well-known/jmap`;
}
