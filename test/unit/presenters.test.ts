/**
 * Presenters (src/<area>/*-presenter.ts): what leaves the server of each record, and that it is what
 * the response schemas (and so the OpenAPI document) say: every output is parsed with its schema.
 */
import { expect } from 'chai';
import type { z } from 'zod';
import { presentAdminUser, presentAuditLog } from '../../src/admin/admin-presenters.js';
import { adminUserSchema, auditLogSchema } from '../../src/admin/admin-responses.js';
import { presentContact } from '../../src/contacts/contact-presenter.js';
import { contactSchema } from '../../src/contacts/contact-responses.js';
import { presentEmailAccount, presentMember } from '../../src/email-accounts/email-account-presenter.js';
import { emailAccountSchema } from '../../src/email-accounts/email-account-responses.js';
import { memberView } from '../../src/email-accounts/email-account-schemas.js';
import type { EmailRecord } from '../../src/emails/email-records.js';
import { PREVIEW_LENGTH, presentEmail, presentEmailSummary, previewOf } from '../../src/emails/email-presenter.js';
import { emailSchema, emailSummarySchema } from '../../src/emails/email-responses.js';
import type { AuditLog, EmailAccount, Timesheet, User } from '../../src/models/index.js';
import { presentSent, sentEmailData } from '../../src/sending/sending-presenter.js';
import { presentTimesheet } from '../../src/timesheets/timesheet-presenter.js';
import { timesheetSchema } from '../../src/timesheets/timesheet-responses.js';
import { presentUser } from '../../src/users/user-presenter.js';
import { userSchema } from '../../src/users/user-responses.js';

const created = new Date('2026-03-01T08:30:00.000Z');
const updated = new Date('2026-03-02T09:00:00.000Z');
const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** The JSON the client receives: the schema's output, through JSON. */
function wire<S extends z.ZodType>(schema: S, value: z.input<S>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema.parse(value))) as Record<string, unknown>;
}

const user = {
  id: ID(1),
  username: 'jana',
  firstName: 'Jana',
  lastName: 'Nováková',
  role: 'member',
  changedPassword: false,
  lastLogin: null,
  createdAt: created,
  updatedAt: updated,
  passwordHash: '$2b$12$secret',
  tempPasswordExpiresAt: updated,
  emailSetupSkipped: true,
} as unknown as User;

const emailRecord: EmailRecord = {
  id: ID(10),
  userId: ID(1),
  emailAccountId: ID(2),
  contactId: ID(3),
  jmapId: 'M1',
  messageId: 'm@x',
  threadId: 'T1',
  inReplyTo: null,
  from: 'Ana <ana@x.sk>',
  to: 'jana@firma.sk',
  subject: 'Ponuka',
  isRead: false,
  readPending: true,
  outbound: false,
  date: created,
  createdAt: created,
  updatedAt: updated,
  body: 'Dobrý deň,\n\nposielam ponuku.',
  bodyStart: null,
  hasAttachments: true,
  addresses: null,
};

describe('unit: presenters', () => {
  it('a user: never the password hash or the temporary password, dates as ISO strings', () => {
    const json = wire(userSchema, presentUser(user));
    expect(json).to.deep.equal({
      id: ID(1),
      username: 'jana',
      firstName: 'Jana',
      lastName: 'Nováková',
      role: 'member',
      changedPassword: false,
      lastLogin: null,
      createdAt: '2026-03-01T08:30:00.000Z',
      updatedAt: '2026-03-02T09:00:00.000Z',
    });
    expect(JSON.stringify(json)).to.not.include('secret');
  });

  it("an admin sees onboarding: the temporary password's expiry only while it is still the temporary one", () => {
    expect(wire(adminUserSchema, presentAdminUser(user))).to.include({ emailSetupSkipped: true, temporaryPasswordExpiresAt: '2026-03-02T09:00:00.000Z' });
    const changed = { ...user, changedPassword: true } as unknown as User;
    expect(presentAdminUser(changed).temporaryPasswordExpiresAt).to.equal(null);
  });

  it('an audit record keeps its bigserial id as a string (no precision lost)', () => {
    const log = {
      id: '9007199254740993',
      action: 'login',
      userId: ID(1),
      username: 'jana',
      actor: 'jana',
      success: true,
      ip: '127.0.0.1',
      userAgent: 'curl',
      details: { attempt: 1 },
      createdAt: created,
    } as unknown as AuditLog;
    const json = wire(auditLogSchema, presentAuditLog(log));
    expect(json.id).to.equal('9007199254740993');
    expect(json.details).to.deep.equal({ attempt: 1 });
  });

  it('a list item carries a preview, never the body', () => {
    const json = wire(emailSummarySchema, presentEmailSummary(emailRecord));
    expect(json.preview).to.equal('Dobrý deň, posielam ponuku.');
    expect(json).to.not.have.property('body');
    expect(json).to.include({ readPending: true, isRead: false, date: '2026-03-01T08:30:00.000Z' });
    // The list reads only the start of the body: it wins over a full body.
    expect(presentEmailSummary({ ...emailRecord, bodyStart: 'Začiatok' }).preview).to.equal('Začiatok');
  });

  it('the preview is cut at a word near 200 characters, or mid-word when there is no space late enough', () => {
    const words = 'slovo '.repeat(60);
    const preview = previewOf(words);
    expect(preview.endsWith('…')).to.equal(true);
    expect(preview.length).to.be.at.most(PREVIEW_LENGTH + 1);
    expect(preview.slice(0, -1).endsWith('slovo')).to.equal(true);
    expect(previewOf('x'.repeat(500))).to.equal(`${'x'.repeat(PREVIEW_LENGTH)}…`);
    expect(previewOf('x'.repeat(PREVIEW_LENGTH))).to.equal('x'.repeat(PREVIEW_LENGTH));
    expect(previewOf(null)).to.equal('');
  });

  it('a full email: body, threading headers, contacts and attachments (metadata only)', () => {
    const json = wire(
      emailSchema,
      presentEmail({
        ...emailRecord,
        contactIds: [ID(3), ID(4)],
        attachments: [{ id: ID(20), emailId: ID(10), blobId: 'G1', name: 'a.pdf', type: 'application/pdf', size: 5, inline: false, cid: null }],
      }),
    );
    expect(json).to.include({ body: 'Dobrý deň,\n\nposielam ponuku.', messageId: 'm@x', inReplyTo: null });
    expect(json.contactIds).to.deep.equal([ID(3), ID(4)]);
    expect(json.attachments).to.deep.equal([{ id: ID(20), name: 'a.pdf', type: 'application/pdf', size: 5, inline: false }]);
    expect(presentEmail({ ...emailRecord, body: undefined }).body).to.equal(null);
    expect(presentEmail(emailRecord).contactIds).to.deep.equal([]);
  });

  it('a sent email: the stored copy when there is one, and what was sent', () => {
    const sent = { email: null, messageId: 'id@firma.sk', emailAccountId: ID(2), recipients: 3 };
    expect(wire(sentEmailData, presentSent(sent as never))).to.deep.equal({ email: null, sent: { messageId: 'id@firma.sk', emailAccountId: ID(2), recipients: 3 } });
    expect(presentSent({ ...sent, email: emailRecord }).email!.id).to.equal(ID(10));
  });

  it("an email account: never the password; idle sync by default; primary only in the owner's view", () => {
    const account = {
      id: ID(2),
      email: 'jana@firma.sk',
      jmapAccountId: 'jana@firma.sk',
      isPrimary: true,
      isActive: true,
      createdAt: created,
      updatedAt: updated,
      passwordEncrypted: 'sealed-secret',
    } as unknown as EmailAccount;
    const own = wire(emailAccountSchema, presentEmailAccount(account));
    expect(own).to.include({ isPrimary: true, isActive: true });
    expect(own.sync).to.deep.equal({ status: 'idle', lastSuccessAt: null, lastAttemptAt: null, lastError: null, consecutiveFailures: 0, nextAttemptAt: null });
    expect(JSON.stringify(own)).to.not.include('sealed-secret');
    expect(own).to.not.have.property('role');
    const shared = presentEmailAccount({ ...account, access: { role: 'editor', canRead: true, canSend: false } } as never);
    expect(shared).to.include({ isPrimary: false, role: 'editor', canRead: true, canSend: false });
    const owner = presentEmailAccount({ ...account, access: { role: 'owner', canRead: true, canSend: true } } as never);
    expect(owner.isPrimary).to.equal(true);
  });

  it('a member of a shared account, and a contact (emailCount only when it was counted)', () => {
    const member = {
      emailAccountId: ID(2),
      userId: ID(1),
      username: 'jana',
      firstName: null,
      lastName: null,
      role: 'viewer',
      canRead: true,
      canSend: false,
      createdAt: created,
      updatedAt: updated,
    } as const;
    expect(memberView.parse(presentMember(member))).to.deep.equal(member);
    const contact = {
      id: ID(3),
      emailAccountId: ID(2),
      email: 'ana@x.sk',
      name: 'Ana',
      notes: null,
      phone: null,
      title: null,
      tags: [],
      lastEmailAt: null,
      companyId: null,
      company: null,
      unreadCount: 2,
      addedAt: created,
      createdAt: created,
      updatedAt: updated,
    };
    expect(wire(contactSchema, presentContact(contact as never))).to.not.have.property('emailCount');
    expect(presentContact({ ...contact, emailCount: 0 } as never).emailCount).to.equal(0);
  });

  it('a timesheet: never its storage path', () => {
    const timesheet = {
      id: ID(5),
      userId: ID(1),
      fileName: 'Výkaz.pdf',
      fileType: 'pdf',
      fileSize: 1234,
      year: 2026,
      month: 3,
      filePath: '/srv/crm/data/x',
      createdAt: created,
      updatedAt: updated,
    } as unknown as Timesheet;
    const json = wire(timesheetSchema, presentTimesheet(timesheet));
    expect(json).to.include({ fileName: 'Výkaz.pdf', fileType: 'pdf', year: 2026, month: 3 });
    expect(JSON.stringify(json)).to.not.include('/srv/crm');
  });
});
