/**
 * Fixtures of the awaiting-reply tests: a real mailbox (alice) on the test Cyrus, linked over HTTP by
 * its CRM owner; bob writes to it from outside. Messages are placed with IMAP APPEND (their internal
 * date is JMAP's receivedAt, the CRM's date), and the CRM syncs when a test says so.
 */
import { expect } from 'chai';
import type { Express } from 'express';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { testApp, testContext } from '../support/harness.js';
import { crmUser, freshMailUser, linkViaApi, put, type CrmUser, type MailUser } from '../sync/helpers.js';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface AwaitingWorld {
  app: Express;
  ctx: AppContext;
  alice: MailUser;
  bob: MailUser;
  owner: CrmUser;
  accountId: string;
}

export async function awaitingWorld(prefix: string): Promise<AwaitingWorld> {
  const [app, ctx] = await Promise.all([testApp(), testContext()]);
  const [alice, bob] = await Promise.all([freshMailUser(`${prefix}a`), freshMailUser(`${prefix}b`)]);
  const owner = await crmUser();
  return { app, ctx, alice, bob, owner, accountId: await linkViaApi(app, ctx, owner, alice) };
}

export const hoursAgo = (hours: number): Date => new Date(Math.floor((Date.now() - hours * 3_600_000) / 1000) * 1000);

export function uniqueSubject(prefix: string): string {
  return `${prefix} ${randomBytes(4).toString('hex')}`;
}

export const newMessageId = (): string => `${randomBytes(8).toString('hex')}@awaiting.test`;

/** Bob writes into alice's INBOX (a reply to `inReplyTo` when given); answers the Message-ID. */
export async function fromBob(w: AwaitingWorld, subject: string, date: Date, inReplyTo?: string | string[]): Promise<string> {
  const messageId = newMessageId();
  await put(w.alice, 'INBOX', { from: { name: 'Bob Klient', email: w.bob.user }, to: w.alice.user, subject, body: 'Dobrý deň, čakám na odpoveď.', messageId, inReplyTo, date });
  return messageId;
}

/** Alice answers from another mail client: the message lands in her Sent mailbox on the server. */
export async function aliceRepliesElsewhere(w: AwaitingWorld, subject: string, date: Date, inReplyTo: string | string[]): Promise<string> {
  const messageId = newMessageId();
  await put(w.alice, 'Sent', { from: w.alice.user, to: w.bob.user, subject, body: 'Ďakujem, odpovedám.', messageId, inReplyTo, date }, ['\\Seen']);
  return messageId;
}

export async function sync(w: AwaitingWorld): Promise<void> {
  expect((await w.ctx.services.mailSync.syncAccount(w.accountId)).outcome).to.equal('ok');
}

/** GET /api/emails/awaiting-reply as `who` (default the owner); answers the response. */
export function awaiting(w: AwaitingWorld, query: Record<string, string | number> = {}, who: CrmUser = w.owner): request.Test {
  return who.as(request(w.app).get('/api/emails/awaiting-reply').query(query));
}

/** The subjects of the awaiting list (all pages of 100), in the answer's order. */
export async function awaitingSubjects(w: AwaitingWorld, query: Record<string, string | number> = {}, who: CrmUser = w.owner): Promise<string[]> {
  return (await awaitingItems(w, query, who)).map((i) => i.subject as string);
}

export async function awaitingItems(w: AwaitingWorld, query: Record<string, string | number> = {}, who: CrmUser = w.owner): Promise<Json[]> {
  const res = await awaiting(w, { limit: 100, ...query }, who);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.data.items as Json[];
}
