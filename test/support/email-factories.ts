import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { Contact, Email, EmailAccount, type User } from '../../src/models/index.js';
import { testContext } from './harness.js';
import { uniqueName } from './factories.js';

type Owner = User | { user: User };
const userOf = (owner: Owner): User => ('user' in owner ? owner.user : owner);

/**
 * A email account row as link-email would store it, without asking a JMAP server: the password is
 * sealed with the real SecretBox, so the read write-back can sign in with it when it is real.
 */
export async function createEmailAccount(owner: Owner, options: { email?: string; password?: string; jmapAccountId?: string; isPrimary?: boolean } = {}): Promise<EmailAccount> {
  const ctx = await testContext();
  const user = userOf(owner);
  const email = (options.email ?? `${uniqueName('box')}@example.test`).toLowerCase();
  const existing = await EmailAccount.count({ where: { userId: user.id } });
  const id = crypto.randomUUID();
  return EmailAccount.create({
    id,
    userId: user.id,
    email,
    emailPassword: ctx.services.emailAccounts.sealPassword(id, options.password ?? 'dummy-password'),
    jmapAccountId: options.jmapAccountId ?? email,
    isPrimary: options.isPrimary ?? existing === 0,
    isActive: true,
  });
}

export async function createContact(
  account: EmailAccount,
  options: { email?: string; name?: string | null; notes?: string | null; lastEmailAt?: Date | null } = {},
): Promise<Contact> {
  return Contact.create({
    userId: account.userId,
    emailAccountId: account.id,
    email: (options.email ?? `${uniqueName('c')}@partner.test`).toLowerCase(),
    name: options.name === undefined ? null : options.name,
    notes: options.notes ?? null,
    lastEmailAt: options.lastEmailAt ?? null,
  });
}

export interface EmailOptions {
  /** Other contacts that took part (Cc, further recipients); the main contact is always linked. */
  participants?: Contact[];
  subject?: string;
  body?: string | null;
  isRead?: boolean;
  readPending?: boolean;
  date?: Date | null;
  threadId?: string | null;
  jmapId?: string;
  messageId?: string | null;
  from?: string;
  to?: string;
}

/** An email row the way the sync stores it: main contact in contact_id, every participant in email_contacts. */
export async function createEmail(account: EmailAccount, contact: Contact, options: EmailOptions = {}): Promise<Email> {
  const ctx = await testContext();
  const email = await Email.create({
    userId: account.userId,
    emailAccountId: account.id,
    contactId: contact.id,
    jmapId: options.jmapId ?? `M${crypto.randomBytes(8).toString('hex')}`,
    messageId: options.messageId === undefined ? `<${crypto.randomUUID()}@crm.test>` : options.messageId,
    threadId: options.threadId === undefined ? `T${crypto.randomBytes(6).toString('hex')}` : options.threadId,
    inReplyTo: null,
    from: options.from ?? contact.email,
    to: options.to ?? account.email,
    subject: options.subject ?? 'Predmet',
    body: options.body === undefined ? 'Dobrý deň, posielam podklady.' : options.body,
    isRead: options.isRead ?? false,
    readPending: options.readPending ?? false,
    date: options.date === undefined ? new Date() : options.date,
  });
  const contactIds = [contact.id, ...(options.participants ?? []).map((c) => c.id)];
  await ctx.db.sequelize.query('INSERT INTO email_contacts (email_id, contact_id) SELECT $emailId, unnest($contactIds::uuid[]) ON CONFLICT DO NOTHING', {
    bind: { emailId: email.id, contactIds },
  });
  return email;
}

/** The stored read flags of an email, straight from the table. */
export async function readFlags(emailId: string): Promise<{ is_read: boolean; read_pending: boolean } | undefined> {
  const ctx = await testContext();
  const [row] = await ctx.db.sequelize.query<{ is_read: boolean; read_pending: boolean }>('SELECT is_read, read_pending FROM emails WHERE id = $emailId', {
    bind: { emailId },
    type: QueryTypes.SELECT,
  });
  return row;
}
