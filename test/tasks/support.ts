/**
 * Fixtures of the tasks and timelines suites, over the people suites' team (two personal mailboxes,
 * a team mailbox with an editor, a viewer and an editor without canRead, an outsider): mail stored as
 * the sync stores it with a chosen Message-ID, thread and date, and the conversation of an email.
 */
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { Contact, type EmailAccount } from '../../src/models/index.js';
import { createEmail } from '../support/email-factories.js';
import { testContext } from '../support/harness.js';
import type { Member } from '../people/support.js';

export { team, personOf, type Member, type Team } from '../people/support.js';

export interface Mail {
  contactId: string;
  emailId: string;
}

/**
 * An email between `address` and `account` as the sync stores it: the contact (made by the contacts
 * service as the sync makes it, filed under its domain's company) linked to the email, its
 * last_email_at moved to the email's date.
 */
export async function mail(
  account: EmailAccount,
  address: string,
  options: { name?: string; date?: Date; messageId?: string | null; threadId?: string; subject?: string; outbound?: boolean } = {},
): Promise<Mail> {
  const ctx = await testContext();
  const email = address.toLowerCase();
  let contact = await Contact.findOne({ where: { emailAccountId: account.id, email } });
  if (!contact) {
    const created = await ctx.services.contacts.create(account.userId, { emailAccountId: account.id, email, name: options.name ?? null }, { actor: 'test' });
    contact = (await Contact.findByPk(created.id))!;
  }
  const date = options.date ?? new Date();
  const stored = await createEmail(account, contact, {
    date,
    from: options.outbound ? account.email : email,
    to: options.outbound ? email : account.email,
    ...(options.messageId !== undefined ? { messageId: options.messageId } : {}),
    ...(options.threadId ? { threadId: options.threadId } : {}),
    ...(options.subject ? { subject: options.subject } : {}),
  });
  if (options.outbound) await ctx.db.sequelize.query('UPDATE emails SET outbound = true WHERE id = $id', { bind: { id: stored.id } });
  await ctx.db.sequelize.query('UPDATE contacts SET last_email_at = greatest(last_email_at, $date) WHERE id = $id', { bind: { date, id: contact.id } });
  return { contactId: contact.id, emailId: stored.id };
}

/** The conversation (email_threads row) an email belongs to. */
export async function conversationOf(emailId: string): Promise<string> {
  const ctx = await testContext();
  const [row] = await ctx.db.sequelize.query<{ id: string }>(
    'SELECT t.id FROM email_threads t JOIN emails e ON e.email_account_id = t.email_account_id AND e.thread_id = t.thread_id WHERE e.id = $1',
    { bind: [emailId], type: QueryTypes.SELECT },
  );
  return row.id;
}

/** The company (id) a contact is filed under. */
export async function companyOfContact(contactId: string): Promise<string> {
  const ctx = await testContext();
  const [row] = await ctx.db.sequelize.query<{ id: string }>('SELECT company_id AS id FROM contacts WHERE id = $1', { bind: [contactId], type: QueryTypes.SELECT });
  return row.id;
}

export interface TaskView {
  id: string;
  title: string;
  dueAt: string;
  status: 'open' | 'done';
  completedAt: string | null;
  notifiedAt: string | null;
  assignee: { id: string; username: string; disabled: boolean };
  createdBy: { id: string } | null;
  link: { type: string; id: string; visible: boolean; name: string | null; emailAccountId: string | null } | null;
  mayEdit: boolean;
}

/** POST /api/tasks that must succeed; the task as answered. */
export async function createTask(who: Member, body: Record<string, unknown>): Promise<TaskView> {
  const res = await who.post('/api/tasks', body);
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body.data.task as TaskView;
}

/** The caller's tasks (one page of 100) with a query string. */
export async function tasksOf(who: Member, query = ''): Promise<TaskView[]> {
  const res = await who.get(`/api/tasks?limit=100${query}`);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.data.items as TaskView[];
}

/** Rows of a table matching a condition (counts straight from the database). */
export async function count(sql: string, bind: unknown[]): Promise<number> {
  const ctx = await testContext();
  const [row] = await ctx.db.sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, { bind, type: QueryTypes.SELECT });
  return row.n;
}

/** An ISO time `minutes` from now (negative: in the past). */
export const inMinutes = (minutes: number): string => new Date(Date.now() + minutes * 60_000).toISOString();
