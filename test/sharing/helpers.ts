/**
 * A real shared mailbox for the sharing tests: a mail user on the test Cyrus with a few messages,
 * linked by its owner through the API and synced, then shared over HTTP with an editor and a viewer.
 * A fourth user has no share at all.
 */
import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { testApp, testContext } from '../support/harness.js';
import { crmUser, freshMailUser, linkViaApi, put, type CrmUser, type MailUser } from '../sync/helpers.js';

export const ALICE = { name: 'Alice Klientová', email: 'alice@clients.example' };
export const BOB = { name: 'Bob Dodávateľ', email: 'bob@vendor.example' };
const day = (n: number) => new Date(Date.UTC(2025, 2, n, 9, 0, 0));

export interface SharedMailbox {
  app: Express;
  ctx: AppContext;
  mail: MailUser;
  owner: CrmUser;
  editor: CrmUser;
  viewer: CrmUser;
  outsider: CrmUser;
  accountId: string;
}

export async function sharedMailbox(prefix: string): Promise<SharedMailbox> {
  const app = await testApp();
  const ctx = await testContext();
  const mail = await freshMailUser(prefix);
  const me = { name: 'Tímová schránka', email: mail.user };
  await put(mail, 'INBOX', { from: ALICE, to: me, subject: 'Objednávka 1', body: 'Prosím o ponuku.', date: day(1) });
  await put(mail, 'INBOX', { from: ALICE, to: me, subject: 'Objednávka 2', body: 'Doplnenie objednávky.', date: day(2) }, ['\\Seen']);
  await put(mail, 'INBOX', { from: BOB, to: me, subject: 'Faktúra', body: 'Posielam faktúru.', date: day(3) });
  const [owner, editor, viewer, outsider] = [await crmUser(), await crmUser(), await crmUser(), await crmUser()];
  const accountId = await linkViaApi(app, ctx, owner, mail);
  const box = { app, ctx, mail, owner, editor, viewer, outsider, accountId };
  expect((await share(box, editor, { role: 'editor', canSend: true })).status).to.equal(201);
  expect((await share(box, viewer, { role: 'viewer' })).status).to.equal(201);
  return box;
}

/** The owner shares the mailbox over HTTP. */
export function share(box: SharedMailbox, who: CrmUser, body: Record<string, unknown>, as: CrmUser = box.owner): request.Test {
  return as.as(request(box.app).post(`/api/email-accounts/${box.accountId}/share`)).send({ userId: who.fixture.user.id, ...body });
}

export function get(box: SharedMailbox, who: CrmUser, path: string): request.Test {
  return who.as(request(box.app).get(path));
}

/** Rows of any table that still name the account: none may remain after it was deleted. */
export async function rowsOfAccount(ctx: AppContext, accountId: string): Promise<Record<string, number>> {
  const [row] = await ctx.db.sequelize.query<Record<string, number>>(
    `SELECT (SELECT count(*) FROM email_account_members WHERE email_account_id = $1)::int AS members,
            (SELECT count(*) FROM contacts WHERE email_account_id = $1)::int AS contacts,
            (SELECT count(*) FROM emails WHERE email_account_id = $1)::int AS emails,
            (SELECT count(*) FROM email_contacts l JOIN contacts c ON c.id = l.contact_id WHERE c.email_account_id = $1)::int AS links,
            (SELECT count(*) FROM mail_sync_states WHERE email_account_id = $1)::int AS sync_states,
            (SELECT count(*) FROM contact_suppressions WHERE email_account_id = $1)::int AS suppressions,
            (SELECT count(*) FROM email_accounts WHERE id = $1)::int AS accounts`,
    { bind: [accountId], type: QueryTypes.SELECT },
  );
  return row;
}

/** The account's member rows straight from the table (user id → role), owner rows checked against email_accounts.user_id. */
export async function memberRows(ctx: AppContext, accountId: string): Promise<Record<string, string>> {
  const rows = await ctx.db.sequelize.query<{ user_id: string; role: string }>('SELECT user_id, role FROM email_account_members WHERE email_account_id = $1 ORDER BY user_id', {
    bind: [accountId],
    type: QueryTypes.SELECT,
  });
  return Object.fromEntries(rows.map((r) => [r.user_id, r.role]));
}
