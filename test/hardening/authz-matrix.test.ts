import crypto from 'node:crypto';
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { createTestMailUser, testJmapSessionUrl } from '../support/imap.js';
import { createContact, createEmail, createEmailAccount } from '../support/email-factories.js';
import { pdfFixture } from '../timesheets/fixtures.js';
import { mountedRoutes } from './support/routes.js';
import { buildWorld, storeTimesheet, type Actor, type World } from './support/world.js';

/**
 * Every route of the real app × {anonymous, member owner, other member, admin}, with real records
 * owned by "member owner". Admins reach everyone's timesheets and /api/admin; for contacts, emails
 * and email accounts they are ordinary users (someone else's record is a 404, never a 403 that would
 * confirm it exists). A route the app serves without a row here fails the first test.
 */

type Who = 'anonymous' | 'owner' | 'other' | 'admin';
const WHO: Who[] = ['anonymous', 'owner', 'other', 'admin'];
/** 'ok' = 2xx (the exact code is in `status` when it matters). */
type Outcome = 401 | 403 | 404 | 'ok';
type Expectation = Record<Who, Outcome>;

const OWN_ONLY: Expectation = { anonymous: 401, owner: 'ok', other: 404, admin: 404 };
const OWN_OR_ADMIN: Expectation = { anonymous: 401, owner: 'ok', other: 404, admin: 'ok' };
const ANY_USER: Expectation = { anonymous: 401, owner: 'ok', other: 'ok', admin: 'ok' };
const ADMIN_ONLY: Expectation = { anonymous: 401, owner: 403, other: 403, admin: 'ok' };
const PUBLIC: Expectation = { anonymous: 'ok', owner: 'ok', other: 'ok', admin: 'ok' };

interface Attempt {
  path: string;
  body?: Record<string, unknown>;
  /** Replaces the caller's own credentials (refresh cookie, a throwaway session). */
  headers?: Record<string, string>;
  multipart?: boolean;
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
  return { accountId: account.id, emailId: email.id, attachmentId: row!.id };
}

const ids = (body: Record<string, unknown>): string[] => ((body.data as { items?: Array<{ id: string }> }).items ?? []).map((i) => i.id);
const listShowsOwnersOnlyToOwner = (pick: (w: World) => string) => (body: Record<string, unknown>, m: Matrix, who: Who) => {
  const shown = ids(body).includes(pick(m.world));
  expect(shown, `${who} sees the owner's record in the list`).to.equal(who === 'owner');
};
const timesheetOf = (w: World) => w.owner.timesheet.id;

/** A fresh email account (with a contact and an email) of the owner, for rows that delete. */
async function freshOwnerRecords(m: Matrix) {
  const account = await createEmailAccount(m.world.owner.fixture, { isPrimary: false });
  const contact = await createContact(account);
  const email = await createEmail(account, contact);
  return { account, contact, email };
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
    attempt: async (_m, who) => (who === 'anonymous' ? { path: '/api/auth/logout' } : { path: '/api/auth/logout', headers: { Authorization: (await throwawaySession(roleOf(who))).session.bearer } }),
  },
  'POST /api/auth/link-email': {
    expect: ANY_USER,
    attempt: (m) => ({ path: '/api/auth/link-email', body: { email: m.mailUsers.link.user, emailPassword: m.mailUsers.link.pass } }),
  },

  // --- timesheets: own, and every one for admins
  'POST /api/timesheets/upload': { expect: ANY_USER, status: 201, attempt: () => ({ path: '/api/timesheets/upload', multipart: true }) },
  'GET /api/timesheets/my': { expect: ANY_USER, attempt: () => ({ path: '/api/timesheets/my' }), check: listShowsOwnersOnlyToOwner(timesheetOf) },
  'GET /api/timesheets/all': { expect: ADMIN_ONLY, attempt: (m) => ({ path: `/api/timesheets/all?userId=${m.world.owner.id}` }), check: (b, m) => expect(ids(b)).to.include(m.world.owner.timesheet.id) },
  'GET /api/timesheets/:id/download': { expect: OWN_OR_ADMIN, attempt: (m) => ({ path: `/api/timesheets/${m.world.owner.timesheet.id}/download` }) },
  'DELETE /api/timesheets/:id': {
    expect: OWN_OR_ADMIN,
    attempt: async (m) => ({ path: `/api/timesheets/${(await storeTimesheet(m.ctx, m.world.owner.id, 'member')).id}` }),
  },

  // --- contacts: own only, admins included
  'GET /api/contacts': { expect: ANY_USER, attempt: () => ({ path: '/api/contacts' }), check: listShowsOwnersOnlyToOwner((w) => w.owner.contact.id) },
  'POST /api/contacts': {
    expect: OWN_ONLY,
    status: 201,
    attempt: (m) => ({ path: '/api/contacts', body: { emailAccountId: m.world.owner.account.id, email: `${crypto.randomBytes(4).toString('hex')}@matrix.test` } }),
  },
  'GET /api/contacts/:id': { expect: OWN_ONLY, attempt: (m) => ({ path: `/api/contacts/${m.world.owner.contact.id}` }) },
  'PATCH /api/contacts/:id': { expect: OWN_ONLY, attempt: (m) => ({ path: `/api/contacts/${m.world.owner.contact.id}`, body: { notes: 'matica' } }) },
  'DELETE /api/contacts/:id': { expect: OWN_ONLY, attempt: async (m) => ({ path: `/api/contacts/${(await freshOwnerRecords(m)).contact.id}` }) },

  // --- emails: own only, admins included
  'GET /api/emails': { expect: ANY_USER, attempt: () => ({ path: '/api/emails' }), check: listShowsOwnersOnlyToOwner((w) => w.owner.email.id) },
  'GET /api/emails/:id': { expect: OWN_ONLY, attempt: (m) => ({ path: `/api/emails/${m.world.owner.email.id}` }) },
  'GET /api/emails/:id/thread': { expect: OWN_ONLY, attempt: (m) => ({ path: `/api/emails/${m.world.owner.email.id}/thread` }) },
  'PATCH /api/emails/:id': { expect: OWN_ONLY, attempt: (m) => ({ path: `/api/emails/${m.world.owner.email.id}`, body: { isRead: false } }) },
  'POST /api/emails/contact/:contactId/read': { expect: OWN_ONLY, attempt: (m) => ({ path: `/api/emails/contact/${m.world.owner.contact.id}/read` }) },
  // Sending: from an account the caller may send from (today the owner's own); others get 404.
  'POST /api/emails': {
    expect: OWN_ONLY,
    status: 201,
    attempt: (m) => ({ path: '/api/emails', body: { emailAccountId: m.sending.accountId, to: m.mailUsers.link.user, subject: 'Matica', text: 'x' } }),
  },
  'POST /api/emails/:id/reply': {
    expect: OWN_ONLY,
    status: 201,
    attempt: (m) => ({ path: `/api/emails/${m.sending.emailId}/reply`, body: { to: m.mailUsers.link.user, text: 'x' } }),
  },
  'GET /api/emails/:id/attachments/:attachmentId': {
    expect: OWN_ONLY,
    attempt: (m) => ({ path: `/api/emails/${m.sending.emailId}/attachments/${m.sending.attachmentId}` }),
  },

  // --- email accounts: own only, admins included
  'GET /api/email-accounts': { expect: ANY_USER, attempt: () => ({ path: '/api/email-accounts' }), check: listShowsOwnersOnlyToOwner((w) => w.owner.account.id) },
  'POST /api/email-accounts': {
    expect: ANY_USER,
    status: 201,
    attempt: (m) => ({ path: '/api/email-accounts', body: { email: m.mailUsers.add.user, emailPassword: m.mailUsers.add.pass } }),
  },
  'PATCH /api/email-accounts/:id': { expect: OWN_ONLY, attempt: (m) => ({ path: `/api/email-accounts/${m.world.owner.account.id}`, body: { isPrimary: true } }) },
  'POST /api/email-accounts/:id/sync': { expect: OWN_ONLY, status: 202, attempt: (m) => ({ path: `/api/email-accounts/${m.world.owner.account.id}/sync` }) },
  'DELETE /api/email-accounts/:id': { expect: OWN_ONLY, attempt: async (m) => ({ path: `/api/email-accounts/${(await freshOwnerRecords(m)).account.id}` }) },

  // --- admin
  'GET /api/admin/users': { expect: ADMIN_ONLY, attempt: () => ({ path: '/api/admin/users' }) },
  'POST /api/admin/users': { expect: ADMIN_ONLY, status: 201, attempt: () => ({ path: '/api/admin/users', body: { username: `matrix.${crypto.randomBytes(4).toString('hex')}` } }) },
  'GET /api/admin/users/:id': { expect: ADMIN_ONLY, attempt: (m) => ({ path: `/api/admin/users/${m.world.owner.id}` }) },
  'PATCH /api/admin/users/:id': { expect: ADMIN_ONLY, attempt: (m) => ({ path: `/api/admin/users/${m.world.owner.id}`, body: { firstName: 'Matica' } }) },
  'POST /api/admin/users/:id/reset-password': { expect: ADMIN_ONLY, attempt: async () => ({ path: `/api/admin/users/${(await createUser()).user.id}/reset-password` }) },
  'DELETE /api/admin/users/:id': { expect: ADMIN_ONLY, attempt: async () => ({ path: `/api/admin/users/${(await createUser()).user.id}` }) },
  'GET /api/admin/audit-logs': { expect: ADMIN_ONLY, attempt: () => ({ path: '/api/admin/audit-logs' }) },
};

describe('hardening: authorization matrix (every route × anonymous, member owner, other member, admin)', function () {
  this.timeout(120_000);
  let app: Express;
  let m: Matrix;

  before(async () => {
    app = await testApp();
    const ctx = await testContext();
    const world = await buildWorld(ctx);
    const [link, add] = [await createTestMailUser('matrix'), await createTestMailUser('matrix')];
    m = { ctx, world, mailUsers: { link, add }, sending: await ownerSending(ctx, world), actor: (who) => (who === 'anonymous' ? undefined : world[who]) };
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
        else if (attempt.body) req = req.send(attempt.body);
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
    for (const record of [owner.account, owner.contact, owner.email, owner.timesheet]) await record.reload();
  });
});
