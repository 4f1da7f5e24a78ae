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

/** A contact added by hand through the API (the service files it under its domain's company). */
export async function addContact(who: Member, emailAccountId: string, email: string, name?: string): Promise<ContactView> {
  const res = await who.post('/api/contacts', { emailAccountId, email, ...(name ? { name } : {}) });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body.data.contact as ContactView;
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
