import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { createTestMailUser, testJmapSessionUrl } from '../support/imap.js';
import { createContact, createEmail, createEmailAccount } from '../support/email-factories.js';
import { Contact, EmailAccount } from '../../src/models/index.js';
import { pdfFixture } from '../timesheets/fixtures.js';
import { mountedRoutes } from './support/routes.js';
import { buildWorld, createActor, storeTimesheet, type Actor, type World } from './support/world.js';

/**
 * Every route of the real app × {anonymous, member owner, the owner's editor, viewer and editor
 * without canRead, other member, admin}, with real records owned by "member owner" whose email account
 * is shared with the three (docs/contract.md §4.3). Admins reach everyone's timesheets and
 * /api/admin; for contacts, emails and email accounts they are ordinary users: someone else's record,
 * like that of an account not shared with the caller, is a 404, never a 403 that would confirm it
 * exists. A member without the right gets a 403. A route the app serves without a row here fails the
 * first test.
 */

type Who = 'anonymous' | 'owner' | 'editor' | 'viewer' | 'noRead' | 'other' | 'admin';
const WHO: Who[] = ['anonymous', 'owner', 'editor', 'viewer', 'noRead', 'other', 'admin'];
/** The shares of the owner's email accounts (noRead: an editor with canRead false). */
const SHARES = {
  editor: { role: 'editor', canRead: true, canSend: true },
  viewer: { role: 'viewer', canRead: true, canSend: false },
  noRead: { role: 'editor', canRead: false, canSend: false },
} as const;
type Member = keyof typeof SHARES;
const MEMBERS = Object.keys(SHARES) as Member[];
/** 'ok' = 2xx (the exact code is in `status` when it matters). */
type Outcome = 401 | 403 | 404 | 'ok';
type Expectation = Record<Who, Outcome>;

/** A route on the owner's shared email account: the three members get what their share allows, anyone else 404. */
const shared = (editor: Outcome, viewer: Outcome, noRead: Outcome): Expectation => ({ anonymous: 401, owner: 'ok', editor, viewer, noRead, other: 404, admin: 404 });
const SHARED_VIEW = shared('ok', 'ok', 'ok');
const SHARED_READ = shared('ok', 'ok', 403);
const SHARED_EDIT = shared('ok', 403, 'ok');
const SHARED_MARK_READ = shared('ok', 403, 403);
const OWNER_ONLY = shared(403, 403, 403);
/** canSend: the owner and the editor (viewer and noRead have no send right). */
const SHARED_SEND = shared('ok', 403, 403);
/** An account of the owner that is shared with nobody. */
const UNSHARED_OWN: Expectation = { anonymous: 401, owner: 'ok', editor: 404, viewer: 404, noRead: 404, other: 404, admin: 404 };
const OWN_OR_ADMIN: Expectation = { anonymous: 401, owner: 'ok', editor: 404, viewer: 404, noRead: 404, other: 404, admin: 'ok' };
const ANY_USER: Expectation = { anonymous: 401, owner: 'ok', editor: 'ok', viewer: 'ok', noRead: 'ok', other: 'ok', admin: 'ok' };
const ADMIN_ONLY: Expectation = { anonymous: 401, owner: 403, editor: 403, viewer: 403, noRead: 403, other: 403, admin: 'ok' };
const PUBLIC: Expectation = { anonymous: 'ok', owner: 'ok', editor: 'ok', viewer: 'ok', noRead: 'ok', other: 'ok', admin: 'ok' };

interface Attempt {
  path: string;
  body?: Record<string, unknown>;
  /** Replaces the caller's own credentials (refresh cookie, a throwaway session). */
  headers?: Record<string, string>;
  multipart?: boolean;
  /** Another multipart form: its text fields and one file. */
  form?: { fields: Record<string, string>; file: { field: string; name: string; content: string } };
  /** A text/event-stream answer: judged by its status and headers, the stream itself is closed at once. */
  stream?: boolean;
}

interface Row {
  expect: Expectation;
  status?: number;
  /** Builds the request; destructive rows make a fresh record for every attempt. */
  attempt: (m: Matrix, who: Who) => Promise<Attempt> | Attempt;
  /** Extra checks on a 2xx answer (lists: nothing of the owner's shown to anyone else). */
  check?: (body: Record<string, unknown>, m: Matrix, who: Who) => void;
}

interface Matrix {
  ctx: AppContext;
  world: World;
  members: Record<Member, Actor>;
  actor: (who: Who) => Actor | undefined;
  mailUsers: { link: { user: string; pass: string }; add: { user: string; pass: string } };
  /** A real mail account of the owner to send from, with an email and an attachment whose blob exists. */
  sending: { accountId: string; emailId: string; attachmentId: string };
}

/** The owner gets a real mail account (the world's is fake) with an email that has a real blob as attachment. */
async function ownerSending(ctx: AppContext, world: World): Promise<Matrix['sending']> {
  const mail = await createTestMailUser('matrix-send');
  const account = await createEmailAccount(world.owner.fixture, { email: mail.user, password: mail.pass, jmapAccountId: mail.user, isPrimary: false });
  const email = await createEmail(account, await createContact(account));
  const upload = await fetch(`${new URL(testJmapSessionUrl()).origin}/jmap/upload/${encodeURIComponent(mail.user)}/`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${mail.user}:${mail.pass}`).toString('base64')}`, 'Content-Type': 'text/plain' },
    body: 'matica',
  });
  const { blobId } = (await upload.json()) as { blobId: string };
  const [[row]] = (await ctx.db.sequelize.query(
    "INSERT INTO email_attachments (email_id, position, blob_id, name, type, size) VALUES ($1, 0, $2, 'matica.txt', 'text/plain', 6) RETURNING id",
    { bind: [email.id, blobId] },
  )) as [Array<{ id: string }>, unknown];
  return { accountId: account.id, emailId: email.id, attachmentId: row.id };
}

const ids = (body: Record<string, unknown>): string[] => ((body.data as { items?: Array<{ id: string }> }).items ?? []).map((i) => i.id);
/** A list shows the owner's record to exactly these callers. */
const listShows = (pick: (w: World) => string, seers: Who[]) => (body: Record<string, unknown>, m: Matrix, who: Who) => {
  const shown = ids(body).includes(pick(m.world));
  expect(shown, `${who} sees the owner's record in the list`).to.equal(seers.includes(who));
};
/** The company list shows the owner's company (resolved by the row's attempt) to exactly these callers. */
const companyListShows = (seers: Who[]) => (body: Record<string, unknown>, m: Matrix, who: Who) => {
  expect(ids(body).includes(companyIds.get(m)!), `${who} sees the owner's company in the list`).to.equal(seers.includes(who));
};
const timesheetOf = (w: World) => w.owner.timesheet.id;
const accountOf = (m: Matrix) => m.world.owner.account.id;

/** Shares an account of the owner with the matrix's editor, viewer and editor without canRead. */
async function shareWithMembers(m: Matrix, accountId: string): Promise<void> {
  for (const who of MEMBERS) {
    await m.ctx.services.emailAccountSharing.share({ kind: 'admin' }, accountId, { userId: m.members[who].id, ...SHARES[who] }, { actor: 'test' });
  }
}

/** A fresh email account (with a contact and an email) of the owner, shared like the first, for rows that delete. */
async function freshOwnerRecords(m: Matrix) {
  const account = await createEmailAccount(m.world.owner.fixture, { isPrimary: false });
  await shareWithMembers(m, account.id);
  const contact = await createContact(account);
  const email = await createEmail(account, contact);
  return { account, contact, email };
}

/** A company of a contact in the owner's shared account (added as the sync files it), one per matrix. */
const companies = new WeakMap<Matrix, Promise<string>>();
/** The conversation (email_threads row) of the owner's email, in their shared account. */
const conversationIds = new WeakMap<Matrix, string>();
async function ownerConversation(m: Matrix): Promise<string> {
  if (!conversationIds.has(m)) {
    const [row] = await m.ctx.db.sequelize.query<{ id: string }>(
      'SELECT t.id FROM email_threads t JOIN emails e ON e.email_account_id = t.email_account_id AND e.thread_id = t.thread_id WHERE e.id = $1',
      { bind: [m.world.owner.email.id], type: QueryTypes.SELECT },
    );
    conversationIds.set(m, row.id);
  }
  return conversationIds.get(m)!;
}
const conversationListShows = (seers: Who[]) => (body: Record<string, unknown>, m: Matrix, who: Who) => {
  expect(ids(body).includes(conversationIds.get(m)!), `${who} sees the owner's conversation in the list`).to.equal(seers.includes(who));
};
/** Owner, editor and viewer read the conversation; the editor without canRead does not see it at all. */
const CONVERSATION_READ = shared('ok', 'ok', 404);
const CONVERSATION_TRIAGE = shared('ok', 403, 404);
const CONVERSATION_AUTHOR = shared(403, 403, 404);

const companyIds = new WeakMap<Matrix, string>();
/**
 * A fresh address with mail in the owner's shared account, as the sync stores it: the contact (filed
 * under its company), an email linked to it and its last_email_at. Companies and people show their
 * shared fields only through such mail (issue 52, finding 1); answers the contact's id.
 */
async function ownerMail(m: Matrix, email = `kontakt@matica-${crypto.randomBytes(4).toString('hex')}.test`): Promise<{ contactId: string; companyId: string | null }> {
  const created = await m.ctx.services.contacts.create(m.world.owner.id, { emailAccountId: accountOf(m), email }, { actor: 'test' });
  const account = (await EmailAccount.findByPk(accountOf(m)))!;
  await createEmail(account, (await Contact.findByPk(created.id))!);
  await m.ctx.db.sequelize.query('UPDATE contacts SET last_email_at = now() WHERE id = $1', { bind: [created.id] });
  return { contactId: created.id, companyId: created.companyId };
}
function ownerCompany(m: Matrix): Promise<string> {
  if (!companies.has(m)) {
    companies.set(
      m,
      ownerMail(m).then(async ({ contactId }) => {
        // Filed under its company by contacts.create; the company shows once the mail is there.
        const [row] = await m.ctx.db.sequelize.query<{ id: string }>('SELECT company_id AS id FROM contacts WHERE id = $1', { bind: [contactId], type: QueryTypes.SELECT });
        companyIds.set(m, row.id);
        return row.id;
      }),
    );
  }
  return companies.get(m)!;
}

/** The person of an address with mail in the owner's shared account (one per matrix, and fresh ones for merges). */
const people = new WeakMap<Matrix, Promise<string>>();
const personIds = new WeakMap<Matrix, string>();
async function freshOwnerPerson(m: Matrix): Promise<string> {
  const email = `osoba@matica-${crypto.randomBytes(4).toString('hex')}.test`;
  await ownerMail(m, email);
  const [row] = await m.ctx.db.sequelize.query<{ id: string }>('SELECT person_id AS id FROM person_emails WHERE email = $1', { bind: [email], type: QueryTypes.SELECT });
  return row.id;
}
function ownerPerson(m: Matrix): Promise<string> {
  if (!people.has(m))
    people.set(
      m,
      freshOwnerPerson(m).then((id) => (personIds.set(m, id), id)),
    );
  return people.get(m)!;
}
const personListShows = (seers: Who[]) => (body: Record<string, unknown>, m: Matrix, who: Who) => {
  expect(ids(body).includes(personIds.get(m)!), `${who} sees the owner's person in the list`).to.equal(seers.includes(who));
};
/** Companies and people: seen through mail the caller may read (not by the editor without canRead), changed by owner and editors. */
const MAIL_READ = shared('ok', 'ok', 404);
const MAIL_EDIT = shared('ok', 403, 404);

/** A task of the owner's conversation (seen by its mailbox's readers), assigned to the owner: one per matrix, fresh ones for rows that delete. */
const ownerTasks = new WeakMap<Matrix, Promise<string>>();
const taskIds = new WeakMap<Matrix, string>();
async function freshOwnerTask(m: Matrix): Promise<string> {
  const task = await m.ctx.services.tasks.create(
    m.world.owner.id,
    { title: 'Matica', dueAt: new Date('2030-01-01T08:00:00Z'), conversationId: await ownerConversation(m) },
    { actor: 'test' },
  );
  return task.id;
}
function ownerTask(m: Matrix): Promise<string> {
  if (!ownerTasks.has(m))
    ownerTasks.set(
      m,
      freshOwnerTask(m).then((id) => (taskIds.set(m, id), id)),
    );
  return ownerTasks.get(m)!;
}
/** The owner's own list (assignee=me) shows the owner's task to the owner only. */
const taskListShows = (seers: Who[]) => (body: Record<string, unknown>, m: Matrix, who: Who) => {
  expect(ids(body).includes(taskIds.get(m)!), `${who} sees the owner's task in their list`).to.equal(seers.includes(who));
};

/** A fresh private template of the owner (rows that delete need one per attempt). */
async function ownerTemplate(m: Matrix): Promise<string> {
  const t = await m.ctx.services.templates.create(
    { userId: m.world.owner.id, isAdmin: false },
    { name: 'Matica', subject: 'S {{contact.name}}', text: 'T', shared: false },
    { actor: 'test' },
  );
  return t.id;
}

/** A fresh draft of the owner on the account, to a real mail user (for the send row). */
async function ownerDraft(m: Matrix, accountId: string): Promise<string> {
  const d = await m.ctx.services.drafts.create(m.world.owner.id, { emailAccountId: accountId, to: [{ email: m.mailUsers.link.user }], subject: 'Matica', text: 'x' });
  return d.id;
}

/** A fresh draft of the owner holding one kept file (its row only: the bytes do not matter here); answers the file's path. */
async function ownerDraftFile(m: Matrix, accountId: string): Promise<string> {
  const key = `matrix-${crypto.randomUUID()}`;
  await m.ctx.db.sequelize.query("INSERT INTO email_attachment_files (storage_key, name, type, size, sha256) VALUES ($1, 'a.pdf', 'application/pdf', 1, '')", { bind: [key] });
  const d = await m.ctx.services.drafts.create(m.world.owner.id, { emailAccountId: accountId, text: 'x' }, [{ blobId: key, name: 'a.pdf', type: 'application/pdf', size: 1 }]);
  return `/api/drafts/${d.id}/attachments/${d.attachments[0].id}`;
}

/**
 * A send of the owner's scheduled for tomorrow, as the scheduling service stores it (its route needs the
 * mail server; test/compose/scheduled-send.test.ts covers that path): private to the owner.
 */
async function ownerScheduled(m: Matrix): Promise<string> {
  const [row] = await m.ctx.db.sequelize.query<{ id: string }>(
    `INSERT INTO scheduled_emails (user_id, email_account_id, kind, request, send_at, next_attempt_at, message_id)
     VALUES ($1, $2, 'new', $3::jsonb, now() + interval '1 day', now() + interval '1 day', $4) RETURNING id`,
    {
      bind: [m.world.owner.id, accountOf(m), JSON.stringify({ to: [{ email: m.mailUsers.link.user }], subject: 'Matica', text: 'x' }), `<${crypto.randomUUID()}@crm.test>`],
      type: QueryTypes.SELECT,
    },
  );
  return row.id;
}

/** A user who is a viewer of the owner's account, for rows that change or end a share. */
async function freshViewer(m: Matrix): Promise<string> {
  const { user } = await createUser();
  await m.ctx.services.emailAccountSharing.share({ kind: 'admin' }, accountOf(m), { userId: user.id, role: 'viewer', canRead: true, canSend: false }, { actor: 'test' });
  return user.id;
}

async function throwawaySession(role: 'admin' | 'member') {
  const password = `Throwaway-${crypto.randomBytes(4).toString('hex')}-2026`;
  const fixture = await createUser({ role, password, emailSetupSkipped: true });
  return { fixture, password, session: await sessionFor(fixture) };
}

const roleOf = (who: Who): 'admin' | 'member' => (who === 'admin' ? 'admin' : 'member');

const ROWS: Record<string, Row> = {
  // --- public
  'GET /api/health': { expect: PUBLIC, attempt: () => ({ path: '/api/health' }) },
  'GET /api/health/ready': { expect: PUBLIC, attempt: () => ({ path: '/api/health/ready' }) },
  'GET /api/openapi.json': { expect: PUBLIC, attempt: () => ({ path: '/api/openapi.json' }) },
  // Guarded by client address (loopback here), not by user.
  'GET /api/metrics': { expect: PUBLIC, attempt: () => ({ path: '/api/metrics' }) },
  'POST /api/auth/login': {
    expect: PUBLIC,
    attempt: (m) => ({ path: '/api/auth/login', body: { username: m.world.owner.fixture.username, password: m.world.owner.password } }),
  },

  // --- auth: any signed-in user, on their own session
  'POST /api/auth/refresh': {
    expect: ANY_USER,
    attempt: async (m, who) => {
      const actor = m.actor(who);
      if (!actor) return { path: '/api/auth/refresh' };
      return { path: '/api/auth/refresh', headers: { Cookie: `refreshToken=${(await sessionFor(actor.fixture)).refreshToken}` } };
    },
  },
  'GET /api/auth/session': { expect: ANY_USER, attempt: () => ({ path: '/api/auth/session' }) },
  'GET /api/auth/me': { expect: ANY_USER, attempt: () => ({ path: '/api/auth/me' }) },
  'POST /api/auth/skip-email': { expect: ANY_USER, attempt: () => ({ path: '/api/auth/skip-email' }) },
  // Live updates: a stream of the caller's own accounts (its scoping is tested in test/events).
  'GET /api/events': { expect: ANY_USER, attempt: () => ({ path: '/api/events', stream: true }) },
  // Changing the password or logging out ends sessions: done by a throwaway user of the same role.
  'POST /api/auth/set-password': {
    expect: ANY_USER,
    attempt: async (_m, who) => {
      if (who === 'anonymous') return { path: '/api/auth/set-password', body: { newPassword: 'Nove-Heslo-Matica-2026' } };
      const t = await throwawaySession(roleOf(who));
      return { path: '/api/auth/set-password', headers: { Authorization: t.session.bearer }, body: { newPassword: 'Nove-Heslo-Matica-2026', currentPassword: t.password } };
    },
  },
  'POST /api/auth/logout': {
    expect: ANY_USER,
    attempt: async (_m, who) =>
      who === 'anonymous' ? { path: '/api/auth/logout' } : { path: '/api/auth/logout', headers: { Authorization: (await throwawaySession(roleOf(who))).session.bearer } },
  },
  'POST /api/auth/link-email': {
    expect: ANY_USER,
    attempt: (m) => ({ path: '/api/auth/link-email', body: { email: m.mailUsers.link.user, emailPassword: m.mailUsers.link.pass } }),
  },

  // --- timesheets: own, and every one for admins
  'POST /api/timesheets/upload': { expect: ANY_USER, status: 201, attempt: () => ({ path: '/api/timesheets/upload', multipart: true }) },
  'GET /api/timesheets/my': { expect: ANY_USER, attempt: () => ({ path: '/api/timesheets/my' }), check: listShows(timesheetOf, ['owner']) },
  'GET /api/timesheets/all': {
    expect: ADMIN_ONLY,
    attempt: (m) => ({ path: `/api/timesheets/all?userId=${m.world.owner.id}` }),
    check: (b, m) => expect(ids(b)).to.include(m.world.owner.timesheet.id),
  },
  'GET /api/timesheets/:id/download': { expect: OWN_OR_ADMIN, attempt: (m) => ({ path: `/api/timesheets/${m.world.owner.timesheet.id}/download` }) },
  'DELETE /api/timesheets/:id': {
    expect: OWN_OR_ADMIN,
    attempt: async (m) => ({ path: `/api/timesheets/${(await storeTimesheet(m.ctx, m.world.owner.id, 'member')).id}` }),
  },

  // --- contacts: those of the accounts shared with the caller; changes by owner and editors
  'GET /api/contacts': { expect: ANY_USER, attempt: () => ({ path: '/api/contacts' }), check: listShows((w) => w.owner.contact.id, ['owner', ...MEMBERS]) },
  'POST /api/contacts': {
    expect: SHARED_EDIT,
    status: 201,
    attempt: (m) => ({ path: '/api/contacts', body: { emailAccountId: accountOf(m), email: `${crypto.randomBytes(4).toString('hex')}@matrix.test` } }),
  },
  // --- companies: those of the contacts the caller sees; changed only by an owner, or an editor with canRead, of an account showing it (issue 52, finding 7)
  'GET /api/companies': {
    expect: ANY_USER,
    attempt: async (m) => {
      await ownerCompany(m);
      return { path: '/api/companies?limit=100' };
    },
    check: companyListShows(['owner', 'editor', 'viewer']),
  },
  'GET /api/companies/:id': { expect: MAIL_READ, attempt: async (m) => ({ path: `/api/companies/${await ownerCompany(m)}` }) },
  'PATCH /api/companies/:id': { expect: MAIL_EDIT, attempt: async (m) => ({ path: `/api/companies/${await ownerCompany(m)}`, body: { notes: 'matica' } }) },
  // --- people (issue 46): seen through a mailbox whose mail the caller reads; changed and merged by its owner and editors
  'GET /api/people': {
    expect: ANY_USER,
    attempt: async (m) => {
      await ownerPerson(m);
      return { path: '/api/people?limit=100' };
    },
    check: personListShows(['owner', 'editor', 'viewer']),
  },
  'GET /api/people/:id': { expect: MAIL_READ, attempt: async (m) => ({ path: `/api/people/${await ownerPerson(m)}` }) },
  'PATCH /api/people/:id': { expect: MAIL_EDIT, attempt: async (m) => ({ path: `/api/people/${await ownerPerson(m)}`, body: { notes: 'matica' } }) },
  'POST /api/people/:id/merge': {
    expect: MAIL_EDIT,
    attempt: async (m) => ({ path: `/api/people/${await freshOwnerPerson(m)}/merge`, body: { sourceIds: [await freshOwnerPerson(m)] } }),
  },
  // Timelines: as their person or company (the owner's mail); what each item shows is the items' own rule.
  'GET /api/people/:id/timeline': { expect: MAIL_READ, attempt: async (m) => ({ path: `/api/people/${await ownerPerson(m)}/timeline` }) },
  'GET /api/companies/:id/timeline': { expect: MAIL_READ, attempt: async (m) => ({ path: `/api/companies/${await ownerCompany(m)}/timeline` }) },
  // --- tasks (issue 46): a conversation's task is seen by the mailbox's readers, changed by its owner and editors (and its assignee and creator)
  'GET /api/tasks': {
    expect: ANY_USER,
    attempt: async (m) => {
      await ownerTask(m);
      return { path: '/api/tasks?limit=100' };
    },
    check: taskListShows(['owner']),
  },
  'POST /api/tasks': {
    expect: CONVERSATION_READ,
    status: 201,
    attempt: async (m) => ({ path: '/api/tasks', body: { title: 'Matica', dueAt: '2030-01-01T08:00:00Z', conversationId: await ownerConversation(m) } }),
  },
  'GET /api/tasks/:id': { expect: CONVERSATION_READ, attempt: async (m) => ({ path: `/api/tasks/${await ownerTask(m)}` }) },
  'PATCH /api/tasks/:id': { expect: CONVERSATION_TRIAGE, attempt: async (m) => ({ path: `/api/tasks/${await ownerTask(m)}`, body: { title: 'Matica' } }) },
  'DELETE /api/tasks/:id': { expect: CONVERSATION_TRIAGE, status: 204, attempt: async (m) => ({ path: `/api/tasks/${await freshOwnerTask(m)}` }) },
  // Import needs the right to change contacts (a dry run: the attempt stores nothing); export, the right to see them.
  'POST /api/contacts/import': {
    expect: SHARED_EDIT,
    attempt: (m) => ({
      path: '/api/contacts/import',
      form: { fields: { emailAccountId: accountOf(m), dryRun: 'true' }, file: { field: 'file', name: 'kontakty.csv', content: 'email,name\nmatica-import@matrix.test,Matica\n' } },
    }),
  },
  'GET /api/contacts/export': { expect: SHARED_VIEW, attempt: (m) => ({ path: `/api/contacts/export?emailAccountId=${accountOf(m)}&format=csv` }) },
  // The team inbox: conversations of the owner's shared account (readers only), triage by owner and editors, comments by readers.
  'GET /api/conversations': {
    expect: ANY_USER,
    attempt: async (m) => {
      await ownerConversation(m);
      return { path: '/api/conversations?status=all&limit=100' };
    },
    check: conversationListShows(['owner', 'editor', 'viewer']),
  },
  'GET /api/conversations/:id': { expect: CONVERSATION_READ, attempt: async (m) => ({ path: `/api/conversations/${await ownerConversation(m)}` }) },
  'PATCH /api/conversations/:id': { expect: CONVERSATION_TRIAGE, attempt: async (m) => ({ path: `/api/conversations/${await ownerConversation(m)}`, body: { status: 'open' } }) },
  'POST /api/conversations/:id/read': { expect: CONVERSATION_READ, attempt: async (m) => ({ path: `/api/conversations/${await ownerConversation(m)}/read` }) },
  'POST /api/conversations/:id/comments': {
    expect: CONVERSATION_READ,
    status: 201,
    attempt: async (m) => ({ path: `/api/conversations/${await ownerConversation(m)}/comments`, body: { text: 'matica' } }),
  },
  // Only a comment's author deletes it: a fresh comment of the owner's for every attempt.
  'DELETE /api/conversations/:id/comments/:commentId': {
    expect: CONVERSATION_AUTHOR,
    status: 204,
    attempt: async (m) => {
      const id = await ownerConversation(m);
      const comment = await m.ctx.services.comments.add(m.world.owner.id, id, 'matica', { actor: 'test' });
      return { path: `/api/conversations/${id}/comments/${comment.id}` };
    },
  },
  'GET /api/contacts/:id': { expect: SHARED_VIEW, attempt: (m) => ({ path: `/api/contacts/${m.world.owner.contact.id}` }) },
  'PATCH /api/contacts/:id': { expect: SHARED_EDIT, attempt: (m) => ({ path: `/api/contacts/${m.world.owner.contact.id}`, body: { notes: 'matica' } }) },
  'DELETE /api/contacts/:id': { expect: SHARED_EDIT, attempt: async (m) => ({ path: `/api/contacts/${(await freshOwnerRecords(m)).contact.id}` }) },
  // Follow-ups: anyone who sees the contact may keep their own (private) follow-up of it.
  'PUT /api/contacts/:id/follow-up': {
    expect: SHARED_VIEW,
    status: 200,
    attempt: (m) => ({ path: `/api/contacts/${m.world.owner.contact.id}/follow-up`, body: { dueAt: '2030-01-01T08:00:00Z', note: 'matica' } }),
  },
  'DELETE /api/contacts/:id/follow-up': {
    expect: SHARED_VIEW,
    status: 204,
    // The caller's own follow-up of the owner's contact, where they may have one.
    attempt: async (m, who) => {
      const actor = m.actor(who);
      if (actor) await m.ctx.services.followUps.set(actor.id, m.world.owner.contact.id, { dueAt: new Date('2030-01-01T08:00:00Z') }).catch(() => undefined);
      return { path: `/api/contacts/${m.world.owner.contact.id}/follow-up` };
    },
  },
  'GET /api/follow-ups': { expect: ANY_USER, attempt: () => ({ path: '/api/follow-ups' }) },

  // --- emails: those of the accounts shared with canRead; the read state by owner and editors
  'GET /api/emails': { expect: ANY_USER, attempt: () => ({ path: '/api/emails' }), check: listShows((w) => w.owner.email.id, ['owner', 'editor', 'viewer']) },
  'GET /api/emails/awaiting-reply': { expect: ANY_USER, attempt: () => ({ path: '/api/emails/awaiting-reply' }) },
  'GET /api/emails/:id': { expect: SHARED_READ, attempt: (m) => ({ path: `/api/emails/${m.world.owner.email.id}` }) },
  'GET /api/emails/:id/thread': { expect: SHARED_READ, attempt: (m) => ({ path: `/api/emails/${m.world.owner.email.id}/thread` }) },
  'PATCH /api/emails/:id': { expect: SHARED_MARK_READ, attempt: (m) => ({ path: `/api/emails/${m.world.owner.email.id}`, body: { isRead: false } }) },
  'POST /api/emails/contact/:contactId/read': { expect: SHARED_MARK_READ, attempt: (m) => ({ path: `/api/emails/contact/${m.world.owner.contact.id}/read` }) },
  // Sending: from the owner's second account, shared with nobody: only the owner (members of the other account: 404).
  'POST /api/emails': {
    expect: UNSHARED_OWN,
    status: 201,
    attempt: (m) => ({ path: '/api/emails', body: { emailAccountId: m.sending.accountId, to: m.mailUsers.link.user, subject: 'Matica', text: 'x' } }),
  },
  'POST /api/emails/:id/reply': {
    expect: UNSHARED_OWN,
    status: 201,
    attempt: (m) => ({ path: `/api/emails/${m.sending.emailId}/reply`, body: { to: m.mailUsers.link.user, text: 'x' } }),
  },
  'GET /api/emails/:id/attachments/:attachmentId': {
    expect: UNSHARED_OWN,
    attempt: (m) => ({ path: `/api/emails/${m.sending.emailId}/attachments/${m.sending.attachmentId}` }),
  },

  // Forward: rights as reply, from the owner's unshared sending account.
  'POST /api/emails/:id/forward': {
    expect: UNSHARED_OWN,
    status: 201,
    attempt: (m) => ({ path: `/api/emails/${m.sending.emailId}/forward`, body: { to: m.mailUsers.link.user, text: 'x' } }),
  },

  // --- signatures (the caller's own, on a mailbox they may send from), templates and drafts (issue 47)
  'GET /api/email-accounts/:id/signature': { expect: SHARED_SEND, attempt: (m) => ({ path: `/api/email-accounts/${accountOf(m)}/signature` }) },
  'PUT /api/email-accounts/:id/signature': {
    expect: SHARED_SEND,
    status: 200,
    attempt: (m) => ({ path: `/api/email-accounts/${accountOf(m)}/signature`, body: { text: 'matica' } }),
  },
  'GET /api/templates': { expect: ANY_USER, attempt: () => ({ path: '/api/templates' }) },
  'POST /api/templates': { expect: ANY_USER, status: 201, attempt: () => ({ path: '/api/templates', body: { name: 'Matica', subject: 'S', text: 'T' } }) },
  // The owner's private template: nobody else sees it (an admin neither).
  'GET /api/templates/:id': { expect: UNSHARED_OWN, attempt: async (m) => ({ path: `/api/templates/${await ownerTemplate(m)}` }) },
  'PATCH /api/templates/:id': { expect: UNSHARED_OWN, status: 200, attempt: async (m) => ({ path: `/api/templates/${await ownerTemplate(m)}`, body: { text: 'zmena' } }) },
  'DELETE /api/templates/:id': { expect: UNSHARED_OWN, status: 204, attempt: async (m) => ({ path: `/api/templates/${await ownerTemplate(m)}` }) },
  'POST /api/templates/:id/render': {
    expect: UNSHARED_OWN,
    status: 200,
    attempt: async (m) => ({ path: `/api/templates/${await ownerTemplate(m)}/render`, body: { contactId: m.world.owner.contact.id } }),
  },
  'GET /api/drafts': { expect: ANY_USER, attempt: () => ({ path: '/api/drafts' }) },
  'POST /api/drafts': { expect: SHARED_SEND, status: 201, attempt: (m) => ({ path: '/api/drafts', body: { emailAccountId: accountOf(m), text: 'matica' } }) },
  // The owner's draft: private to them.
  'GET /api/drafts/:id': { expect: UNSHARED_OWN, attempt: async (m) => ({ path: `/api/drafts/${await ownerDraft(m, accountOf(m))}` }) },
  'PATCH /api/drafts/:id': { expect: UNSHARED_OWN, status: 200, attempt: async (m) => ({ path: `/api/drafts/${await ownerDraft(m, accountOf(m))}`, body: { text: 'zmena' } }) },
  'DELETE /api/drafts/:id': { expect: UNSHARED_OWN, status: 204, attempt: async (m) => ({ path: `/api/drafts/${await ownerDraft(m, accountOf(m))}` }) },
  'DELETE /api/drafts/:id/attachments/:fileId': { expect: UNSHARED_OWN, status: 204, attempt: async (m) => ({ path: await ownerDraftFile(m, accountOf(m)) }) },
  'POST /api/drafts/:id/send': { expect: UNSHARED_OWN, status: 201, attempt: async (m) => ({ path: `/api/drafts/${await ownerDraft(m, m.sending.accountId)}/send`, body: {} }) },
  'GET /api/scheduled-emails': { expect: ANY_USER, attempt: () => ({ path: '/api/scheduled-emails' }) },
  // The owner's send for later: private to them (an admin neither).
  'GET /api/scheduled-emails/:id': { expect: UNSHARED_OWN, attempt: async (m) => ({ path: `/api/scheduled-emails/${await ownerScheduled(m)}` }) },
  'DELETE /api/scheduled-emails/:id': { expect: UNSHARED_OWN, status: 200, attempt: async (m) => ({ path: `/api/scheduled-emails/${await ownerScheduled(m)}` }) },
  // One search box: any signed-in user, each kind scoped as its own list (test/search/search-box.test.ts).
  'GET /api/search': { expect: ANY_USER, attempt: () => ({ path: '/api/search?q=matica' }) },

  // --- email accounts: own and shared ones; settings by the owner, sync by owner and editors
  'GET /api/email-accounts': { expect: ANY_USER, attempt: () => ({ path: '/api/email-accounts' }), check: listShows((w) => w.owner.account.id, ['owner', ...MEMBERS]) },
  'POST /api/email-accounts': {
    expect: ANY_USER,
    status: 201,
    attempt: (m) => ({ path: '/api/email-accounts', body: { email: m.mailUsers.add.user, emailPassword: m.mailUsers.add.pass } }),
  },
  'PATCH /api/email-accounts/:id': { expect: OWNER_ONLY, attempt: (m) => ({ path: `/api/email-accounts/${accountOf(m)}`, body: { isPrimary: true } }) },
  'POST /api/email-accounts/:id/sync': { expect: SHARED_EDIT, status: 202, attempt: (m) => ({ path: `/api/email-accounts/${accountOf(m)}/sync` }) },
  'DELETE /api/email-accounts/:id': { expect: OWNER_ONLY, attempt: async (m) => ({ path: `/api/email-accounts/${(await freshOwnerRecords(m)).account.id}` }) },

  // --- sharing: members see who has access; only the owner shares
  'GET /api/email-accounts/:accountId/users': { expect: SHARED_VIEW, attempt: (m) => ({ path: `/api/email-accounts/${accountOf(m)}/users` }) },
  'POST /api/email-accounts/:accountId/share': {
    expect: OWNER_ONLY,
    status: 201,
    attempt: async (m) => ({ path: `/api/email-accounts/${accountOf(m)}/share`, body: { userId: (await createUser()).user.id, role: 'viewer' } }),
  },
  'PATCH /api/email-accounts/:accountId/share/:userId': {
    expect: OWNER_ONLY,
    attempt: async (m) => ({ path: `/api/email-accounts/${accountOf(m)}/share/${await freshViewer(m)}`, body: { role: 'editor' } }),
  },
  'DELETE /api/email-accounts/:accountId/share/:userId': {
    expect: OWNER_ONLY,
    attempt: async (m) => ({ path: `/api/email-accounts/${accountOf(m)}/share/${await freshViewer(m)}` }),
  },

  // --- admin
  'GET /api/admin/users': { expect: ADMIN_ONLY, attempt: () => ({ path: '/api/admin/users' }) },
  'POST /api/admin/users': {
    expect: ADMIN_ONLY,
    status: 201,
    attempt: () => ({ path: '/api/admin/users', body: { username: `matrix.${crypto.randomBytes(4).toString('hex')}` } }),
  },
  'GET /api/admin/users/:id': { expect: ADMIN_ONLY, attempt: (m) => ({ path: `/api/admin/users/${m.world.owner.id}` }) },
  'PATCH /api/admin/users/:id': { expect: ADMIN_ONLY, attempt: (m) => ({ path: `/api/admin/users/${m.world.owner.id}`, body: { firstName: 'Matica' } }) },
  'POST /api/admin/users/:id/reset-password': { expect: ADMIN_ONLY, attempt: async () => ({ path: `/api/admin/users/${(await createUser()).user.id}/reset-password` }) },
  'DELETE /api/admin/users/:id': { expect: ADMIN_ONLY, attempt: async () => ({ path: `/api/admin/users/${(await createUser()).user.id}` }) },
  'GET /api/admin/audit-logs': { expect: ADMIN_ONLY, attempt: () => ({ path: '/api/admin/audit-logs' }) },
  'GET /api/admin/email-accounts/:accountId/users': { expect: ADMIN_ONLY, attempt: (m) => ({ path: `/api/admin/email-accounts/${accountOf(m)}/users` }) },
  'POST /api/admin/email-accounts/:accountId/share': {
    expect: ADMIN_ONLY,
    status: 201,
    attempt: async (m) => ({ path: `/api/admin/email-accounts/${accountOf(m)}/share`, body: { userId: (await createUser()).user.id, role: 'editor' } }),
  },
  'PATCH /api/admin/email-accounts/:accountId/share/:userId': {
    expect: ADMIN_ONLY,
    attempt: async (m) => ({ path: `/api/admin/email-accounts/${accountOf(m)}/share/${await freshViewer(m)}`, body: { canRead: false } }),
  },
  'DELETE /api/admin/email-accounts/:accountId/share/:userId': {
    expect: ADMIN_ONLY,
    attempt: async (m) => ({ path: `/api/admin/email-accounts/${accountOf(m)}/share/${await freshViewer(m)}` }),
  },
  // An address nobody else uses: an erasure is global, and must not touch the matrix's own records.
  'POST /api/admin/privacy/export': {
    expect: ADMIN_ONLY,
    attempt: () => ({ path: '/api/admin/privacy/export', body: { email: `matrix-${crypto.randomBytes(4).toString('hex')}@privacy.test` } }),
  },
  'POST /api/admin/privacy/erase': {
    expect: ADMIN_ONLY,
    attempt: () => ({ path: '/api/admin/privacy/erase', body: { email: `matrix-${crypto.randomBytes(4).toString('hex')}@privacy.test` } }),
  },

  // --- the staff lifecycle: the directory and one's own sessions for everyone; disabling and the month's timesheets for admins
  'GET /api/users/directory': { expect: ANY_USER, attempt: () => ({ path: '/api/users/directory' }) },
  'GET /api/auth/sessions': { expect: ANY_USER, attempt: () => ({ path: '/api/auth/sessions' }) },
  'DELETE /api/auth/sessions/:id': {
    expect: ANY_USER,
    // A second session of the caller's own, ended with the first (which goes on).
    attempt: async (m, who) => {
      const actor = m.actor(who);
      const id = actor ? (await sessionFor(actor.fixture)).sessionId : crypto.randomUUID();
      return { path: `/api/auth/sessions/${id}` };
    },
  },
  'POST /api/auth/sessions/revoke-others': { expect: ANY_USER, attempt: () => ({ path: '/api/auth/sessions/revoke-others' }) },
  'POST /api/admin/users/:id/disable': { expect: ADMIN_ONLY, attempt: async () => ({ path: `/api/admin/users/${(await createUser()).user.id}/disable` }) },
  'POST /api/admin/users/:id/enable': { expect: ADMIN_ONLY, attempt: async () => ({ path: `/api/admin/users/${(await createUser()).user.id}/enable` }) },
  'GET /api/admin/timesheets/report': { expect: ADMIN_ONLY, attempt: () => ({ path: '/api/admin/timesheets/report?year=2026&month=4' }) },
  'GET /api/admin/timesheets/export': { expect: ADMIN_ONLY, attempt: () => ({ path: '/api/admin/timesheets/export?year=2091&month=4' }) },

  // --- personal API tokens (issue 48): each user's own
  'POST /api/tokens': { expect: ANY_USER, status: 201, attempt: () => ({ path: '/api/tokens', body: { name: 'matrix', scopes: ['contacts:read'] } }) },
  'GET /api/tokens': { expect: ANY_USER, attempt: () => ({ path: '/api/tokens' }) },
  'DELETE /api/tokens/:id': {
    expect: ANY_USER,
    // A token of the caller's own, made for the attempt.
    attempt: async (m, who) => {
      const actor = m.actor(who);
      const user = actor?.fixture.user;
      const id = user
        ? (await m.ctx.services.apiTokens.create({ id: user.id, username: user.username, role: user.role }, { name: 'matrix', scopes: ['contacts:read'] }, { actor: 'test' }))
            .apiToken.id
        : crypto.randomUUID();
      return { path: `/api/tokens/${id}` };
    },
  },

  // --- webhooks (issue 48): administrators only; receivers at a name that never resolves, nothing subscribed that fires here
  'POST /api/admin/webhooks': {
    expect: ADMIN_ONLY,
    status: 201,
    attempt: () => ({ path: '/api/admin/webhooks', body: { url: 'https://hooks.example.invalid/matrix', events: ['follow_up.due'] } }),
  },
  'GET /api/admin/webhooks': { expect: ADMIN_ONLY, attempt: () => ({ path: '/api/admin/webhooks' }) },
  'GET /api/admin/webhooks/:id': { expect: ADMIN_ONLY, attempt: async (m) => ({ path: `/api/admin/webhooks/${await matrixWebhook(m.ctx)}` }) },
  'PATCH /api/admin/webhooks/:id': { expect: ADMIN_ONLY, attempt: async (m) => ({ path: `/api/admin/webhooks/${await matrixWebhook(m.ctx)}`, body: { description: 'matrix' } }) },
  'DELETE /api/admin/webhooks/:id': { expect: ADMIN_ONLY, attempt: async (m) => ({ path: `/api/admin/webhooks/${await matrixWebhook(m.ctx)}` }) },
  'GET /api/admin/webhooks/:id/deliveries': { expect: ADMIN_ONLY, attempt: async (m) => ({ path: `/api/admin/webhooks/${await matrixWebhook(m.ctx)}/deliveries` }) },
};

/** A disabled webhook made for one attempt. */
async function matrixWebhook(ctx: AppContext): Promise<string> {
  const admin = (await createUser({ role: 'admin' })).user;
  const actor = { id: admin.id, username: admin.username };
  const { webhook } = await ctx.services.webhooks.create({ url: 'https://hooks.example.invalid/matrix', events: ['follow_up.due'] }, actor, { actor: 'test' });
  await ctx.services.webhooks.update(webhook.id, { enabled: false }, actor, { actor: 'test' });
  return webhook.id;
}

describe('hardening: authorization matrix (every route × anonymous, member owner, editor, viewer, editor without canRead, other member, admin)', function () {
  this.timeout(120_000);
  let app: Express;
  let m: Matrix;

  before(async () => {
    app = await testApp();
    const ctx = await testContext();
    const world = await buildWorld(ctx);
    const [link, add] = [await createTestMailUser('matrix'), await createTestMailUser('matrix')];
    const members = { editor: await createActor(ctx, 'member'), viewer: await createActor(ctx, 'member'), noRead: await createActor(ctx, 'member') };
    const actor = (who: Who) => (who === 'anonymous' ? undefined : who === 'owner' || who === 'other' || who === 'admin' ? world[who] : members[who]);
    m = { ctx, world, members, mailUsers: { link, add }, sending: await ownerSending(ctx, world), actor };
    await shareWithMembers(m, world.owner.account.id);
  });

  it('has a row for every route the app serves, and no row for a route it does not', async () => {
    expect(Object.keys(ROWS).sort()).to.deep.equal(mountedRoutes(app));
  });

  for (const [route, row] of Object.entries(ROWS)) {
    const [method, template] = route.split(' ') as [string, string];
    it(`${route}: ${WHO.map((w) => `${w} ${row.expect[w]}`).join(', ')}`, async () => {
      for (const who of WHO) {
        const attempt = await row.attempt(m, who);
        let req = request(app)[method.toLowerCase() as 'get'](attempt.path).set('User-Agent', 'authz-matrix');
        const actor = m.actor(who);
        for (const [k, v] of Object.entries(attempt.headers ?? (actor ? { Authorization: actor.session.bearer } : {}))) req = req.set(k, v);
        if (attempt.multipart) req = req.field('year', '2026').field('month', '4').attach('file', pdfFixture(), 'matica.pdf');
        else if (attempt.form) {
          for (const [k, v] of Object.entries(attempt.form.fields)) req = req.field(k, v);
          req = req.attach(attempt.form.file.field, Buffer.from(attempt.form.file.content, 'utf8'), attempt.form.file.name);
        } else if (attempt.body) req = req.send(attempt.body);
        if (attempt.stream) {
          // An open stream never ends: take its headers and close it; an error answer is read whole.
          req = req.buffer(true).parse((response, done) => {
            if (String(response.headers['content-type']).startsWith('text/event-stream')) {
              (response as unknown as { destroy(): void }).destroy();
              done(null, {});
              return;
            }
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.on('end', () => done(null, text ? (JSON.parse(text) as unknown) : {}));
          });
        }
        const res = await req;
        await m.ctx.services.mailSync.whenIdle();
        const context = `${route} (${template}) as ${who}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
        const expected = row.expect[who];
        if (expected === 'ok') {
          if (row.status) expect(res.status, context).to.equal(row.status);
          else expect(res.status, context).to.be.within(200, 299);
          row.check?.(res.body as Record<string, unknown>, m, who);
        } else {
          expect(res.status, context).to.equal(expected);
          expect(res.body, context).to.deep.include({ success: false });
          expect(res.body.error.statusCode, context).to.equal(expected);
        }
      }
    });
  }

  it('left every record of the owner that nobody was allowed to delete in place', async () => {
    const { owner } = m.world;
    const records = { account: owner.account, contact: owner.contact, email: owner.email, timesheet: owner.timesheet };
    const before = { contact: owner.contact.name, email: owner.email.subject, timesheet: owner.timesheet.fileName };
    for (const [name, record] of Object.entries(records)) {
      // reload() rejects when the row is gone: asserted here, not left to an uncaught rejection.
      const found = await record.reload().then(
        () => true,
        () => false,
      );
      expect(found, `the owner's ${name} is still in the database`).to.equal(true);
    }
    expect({ contact: owner.contact.name, email: owner.email.subject, timesheet: owner.timesheet.fileName }, 'unchanged by the attempts').to.deep.equal(before);
    expect(fs.existsSync(path.join(m.ctx.config.timesheetDir, owner.timesheet.filePath)), 'the timesheet file').to.equal(true);
  });
});
