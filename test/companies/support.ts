/**
 * Shared fixtures of the companies suites: a user with a session and a tiny API client, contacts
 * added through POST /api/contacts (filed under their company as the sync files them), and the
 * stored last_email_at a synced mailbox would leave.
 */
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { sessionFor } from '../support/auth.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testContext } from '../support/harness.js';
import { createEmail } from '../support/email-factories.js';
import { Contact, EmailAccount } from '../../src/models/index.js';

export interface Member {
  fixture: UserFixture;
  id: string;
  get: (path: string) => request.Test;
  patch: (path: string, body: unknown) => request.Test;
  post: (path: string, body: unknown) => request.Test;
  del: (path: string) => request.Test;
}

export async function member(app: Express): Promise<Member> {
  const fixture = await createUser();
  const session = await sessionFor(fixture);
  const auth = (t: request.Test) => t.set('Authorization', session.bearer);
  return {
    fixture,
    id: fixture.user.id,
    get: (path) => auth(request(app).get(path)),
    patch: (path, body) => auth(request(app).patch(path)).send(body as object),
    post: (path, body) => auth(request(app).post(path)).send(body as object),
    del: (path) => auth(request(app).delete(path)),
  };
}

export interface ContactView {
  id: string;
  email: string;
  companyId: string | null;
}

/**
 * A correspondent of the mailbox: a contact added through the API (the service files it under its
 * domain's company), then an email with them stored as the sync stores it (linked, last_email_at
 * set to `mailAt`). A company shows only through such mail (issue 52, finding 1; docs/adr/0136):
 * `mailAt: null` leaves a contact typed by hand, with no mail. Answers the contact as the API then shows it.
 */
export async function addContact(who: Member, emailAccountId: string, email: string, name?: string, mailAt: Date | null = MAIL_AT): Promise<ContactView> {
  const res = await who.post('/api/contacts', { emailAccountId, email, ...(name ? { name } : {}) });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  const contact = res.body.data.contact as ContactView;
  if (mailAt === null) return contact;
  await mailWith(contact.id, mailAt);
  const shown = await who.get(`/api/contacts/${contact.id}`);
  return shown.body.data.contact as ContactView;
}

/** The date of the mail addContact stores by default: early, so a test's own setLastEmailAt moves it. */
export const MAIL_AT = new Date(Date.UTC(2020, 0, 1, 8, 0, 0));

/** An email with the contact in its mailbox, as the sync stores it: linked to the contact, its last_email_at moved. */
export async function mailWith(contactId: string, at: Date): Promise<void> {
  const ctx = await testContext();
  const contact = (await Contact.findByPk(contactId))!;
  const account = (await EmailAccount.findByPk(contact.emailAccountId))!;
  await createEmail(account, contact, { date: at, from: contact.email, to: account.email });
  await ctx.db.sequelize.query('UPDATE contacts SET last_email_at = greatest(last_email_at, $at) WHERE id = $contactId', { bind: { at, contactId } });
}

/** The contact's last_email_at as a synced mailbox leaves it (the sync test covers the real path). */
export async function setLastEmailAt(contactId: string, at: Date): Promise<void> {
  const ctx = await testContext();
  await ctx.db.sequelize.query('UPDATE contacts SET last_email_at = $at WHERE id = $contactId', { bind: { at, contactId } });
}

export interface CompanyView {
  id: string;
  domain: string;
  name: string;
  notes: string | null;
  contactCount: number;
  lastEmailAt: string | null;
}

/** The caller's companies (all pages of at most 100), by domain. */
export async function companiesOf(who: Member, query = ''): Promise<CompanyView[]> {
  const res = await who.get(`/api/companies?limit=100${query}`);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.data.items as CompanyView[];
}
