import request from 'supertest';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../src/app/context.js';
import type { Contact, EmailAccount } from '../../src/models/index.js';
import { createContact, createEmailAccount } from '../support/email-factories.js';
import { crmUser, type CrmUser } from '../sync/helpers.js';

/** A mailbox (database rows only) of `owner` with one contact, shared over HTTP with an editor and a viewer. */
export interface FollowUpBox {
  owner: CrmUser;
  editor: CrmUser;
  viewer: CrmUser;
  outsider: CrmUser;
  account: EmailAccount;
  contact: Contact;
}

export async function followUpBox(app: Express): Promise<FollowUpBox> {
  const [owner, editor, viewer, outsider] = [await crmUser(), await crmUser(), await crmUser(), await crmUser()];
  const account = await createEmailAccount(owner.fixture.user);
  const contact = await createContact(account, { name: 'Alžbeta Klientová' });
  for (const [who, role] of [
    [editor, 'editor'],
    [viewer, 'viewer'],
  ] as const) {
    const res = await owner.as(request(app).post(`/api/email-accounts/${account.id}/share`)).send({ userId: who.fixture.user.id, role });
    if (res.status !== 201) throw new Error(`share: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return { owner, editor, viewer, outsider, account, contact };
}

export function putFollowUp(app: Express, who: CrmUser, contactId: string, body: Record<string, unknown>): request.Test {
  return who.as(request(app).put(`/api/contacts/${contactId}/follow-up`)).send(body);
}

export function listFollowUps(app: Express, who: CrmUser, query = ''): request.Test {
  return who.as(request(app).get(`/api/follow-ups${query}`));
}

/** An ISO time `minutes` from now (negative: in the past). */
export const inMinutes = (minutes: number): string => new Date(Date.now() + minutes * 60_000).toISOString();

/** The follow_up.due events in the outbox for one follow-up (straight from the table). */
export async function dueEventsOf(ctx: AppContext, followUpId: string): Promise<number> {
  const [row] = await ctx.db.sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE type = 'follow_up.due' AND payload->>'followUpId' = $1`, {
    bind: [followUpId],
    type: QueryTypes.SELECT,
  });
  return row.n;
}
