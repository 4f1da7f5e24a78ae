/**
 * Fixtures of the people suites: two personal mailboxes and a team mailbox shared with an editor, a
 * viewer and an editor without canRead; mail stored as the sync stores it (a contact filed under its
 * company, an email linked to it, the contact's last_email_at moved), and contacts typed by hand.
 */
import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import { Contact, type EmailAccount } from '../../src/models/index.js';
import { member, type Member } from '../companies/support.js';
import { createEmail, createEmailAccount } from '../support/email-factories.js';
import { testContext } from '../support/harness.js';

export type { Member } from '../companies/support.js';

export interface Team {
  alice: Member;
  bob: Member;
  /** Owner of the team mailbox. */
  carol: Member;
  editor: Member;
  viewer: Member;
  /** An editor of the team mailbox without canRead. */
  noRead: Member;
  outsider: Member;
  aliceBox: EmailAccount;
  bobBox: EmailAccount;
  teamBox: EmailAccount;
}

export async function team(app: Express, run: string): Promise<Team> {
  const [alice, bob, carol, editor, viewer, noRead, outsider] = await Promise.all(Array.from({ length: 7 }, () => member(app)));
  const aliceBox = await createEmailAccount(alice.fixture, { email: `alica-${run}@staff-${run}.sk` });
  const bobBox = await createEmailAccount(bob.fixture, { email: `bob-${run}@staff-${run}.sk` });
  const teamBox = await createEmailAccount(carol.fixture, { email: `tim-${run}@staff-${run}.sk` });
  const shares: Array<[Member, Record<string, unknown>]> = [
    [editor, { role: 'editor', canRead: true }],
    [viewer, { role: 'viewer', canRead: true }],
    [noRead, { role: 'editor', canRead: false }],
  ];
  for (const [who, share] of shares) {
    const res = await carol.post(`/api/email-accounts/${teamBox.id}/share`, { userId: who.id, ...share });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  }
  return { alice, bob, carol, editor, viewer, noRead, outsider, aliceBox, bobBox, teamBox };
}

/**
 * An email from `address` stored in `account` as the sync stores it: the contact (made with the
 * contacts service as the sync makes it, filed under its domain's company) is linked to the email and
 * its last_email_at moves to the email's date. Answers the contact's id.
 */
export async function receive(account: EmailAccount, address: string, options: { name?: string; date?: Date } = {}): Promise<string> {
  const ctx = await testContext();
  const email = address.toLowerCase();
  let contact = await Contact.findOne({ where: { emailAccountId: account.id, email } });
  if (!contact) {
    const created = await ctx.services.contacts.create(account.userId, { emailAccountId: account.id, email, name: options.name ?? null }, { actor: 'test' });
    contact = (await Contact.findByPk(created.id))!;
  }
  const date = options.date ?? new Date();
  await createEmail(account, contact, { date, from: email, to: account.email });
  await ctx.db.sequelize.query('UPDATE contacts SET last_email_at = greatest(last_email_at, $date) WHERE id = $id', { bind: { date, id: contact.id } });
  return contact.id;
}

/** The person of an address, straight from person_emails (undefined when it has none). */
export async function personOf(address: string): Promise<string | undefined> {
  const ctx = await testContext();
  const [row] = await ctx.db.sequelize.query<{ id: string }>('SELECT person_id::text AS id FROM person_emails WHERE email = $1', {
    bind: [address.toLowerCase()],
    type: QueryTypes.SELECT,
  });
  return row?.id;
}

export interface PersonView {
  id: string;
  name: string | null;
  emails: string[];
  company: { id: string; name: string } | null;
  phone: string | null;
  title: string | null;
  tags: string[];
  notes: string | null;
  lastEmailAt: string | null;
  emailAccountIds: string[];
  colleague: boolean;
}

/** The caller's people (one page of at most 100) with a query string. */
export async function peopleOf(who: Member, query = ''): Promise<PersonView[]> {
  const res = await who.get(`/api/people?limit=100${query}`);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.data.items as PersonView[];
}
