import { Readable } from 'node:stream';
import type { AppContext } from '../../../src/app/context.js';
import type { Contact, Email, EmailAccount, Timesheet } from '../../../src/models/index.js';
import { sessionFor, type TestSession } from '../../support/auth.js';
import { createUser, type UserFixture } from '../../support/factories.js';
import { createContact, createEmail, createEmailAccount } from '../../support/email-factories.js';
import { pdfFixture } from '../../timesheets/fixtures.js';

/** A user with one record of every kind, as the sync and the upload would have stored them. */
export interface Actor {
  fixture: UserFixture;
  id: string;
  session: TestSession;
  password: string;
  account: EmailAccount;
  contact: Contact;
  email: Email;
  timesheet: Timesheet;
}

export interface World {
  owner: Actor;
  other: Actor;
  admin: Actor;
  /** Every user id of the world, for database snapshots. */
  userIds: string[];
  /** Every record id of the world, for the id fuzzers. */
  ids: string[];
  /** Plain members that admin fuzzing may change, reset and delete. */
  victims: string[];
}

export async function storeTimesheet(ctx: AppContext, userId: string, role: 'admin' | 'member', period = { year: 2026, month: 5 }): Promise<Timesheet> {
  const stored = await ctx.services.timesheets.receive(Readable.from([pdfFixture()]));
  return ctx.services.timesheets.upload({ userId, role }, { file: { key: stored.key, size: stored.size, originalName: 'Výkaz máj.pdf' }, ...period }, { actor: 'test' });
}

export async function createActor(ctx: AppContext, role: 'admin' | 'member'): Promise<Actor> {
  const password = `Hardening-${role}-Pass-2026`;
  const fixture = await createUser({ role, password, emailSetupSkipped: true, ctx });
  const account = await createEmailAccount(fixture, { password: 'not-a-real-mail-password' });
  const contact = await createContact(account, { name: 'Zákazník' });
  const email = await createEmail(account, contact, { subject: 'Objednávka' });
  const timesheet = await storeTimesheet(ctx, fixture.user.id, role);
  return { fixture, id: fixture.user.id, session: await sessionFor(fixture), password, account, contact, email, timesheet };
}

export async function buildWorld(ctx: AppContext): Promise<World> {
  const [owner, other, admin] = [await createActor(ctx, 'member'), await createActor(ctx, 'member'), await createActor(ctx, 'admin')];
  const actors = [owner, other, admin];
  const victims: string[] = [];
  for (let i = 0; i < 6; i++) victims.push((await createUser({ ctx })).user.id);
  return {
    victims,
    owner,
    other,
    admin,
    userIds: actors.map((a) => a.id),
    ids: actors.flatMap((a) => [a.id, a.account.id, a.contact.id, a.email.id, a.timesheet.id, a.session.sessionId]),
  };
}
