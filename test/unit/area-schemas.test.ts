/**
 * The request schemas beside the routes (src/<area>/*-schemas.ts): the boundaries of each field and
 * the Slovak message a user sees when they cross one.
 */
import { expect } from 'chai';
import type { z } from 'zod';
import { auditLogQuery, createUserBody, deleteUserQuery, isoInstant, updateUserBody } from '../../src/admin/admin-schemas.js';
import { linkEmailSchema, loginSchema, setPasswordSchema } from '../../src/auth/auth-schemas.js';
import { createContactBody, listContactsQuery, updateContactBody } from '../../src/contacts/contact-schemas.js';
import { changeShareBody, shareBody, updateEmailAccountBody } from '../../src/email-accounts/email-account-schemas.js';
import { listEmailsQuery } from '../../src/emails/email-schemas.js';
import { composeBody, idempotencyKey, replyBody } from '../../src/sending/sending-schemas.js';
import { ownListQuery, uploadFieldsSchema } from '../../src/timesheets/timesheet-schemas.js';
import { usernameSchema } from '../../src/users/user-schemas.js';

const ID = '7f1c1b9e-3c9a-4a53-9d2b-0a4f7a1b2c3d';

function messages(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  expect(result.success, `expected ${JSON.stringify(value)} to be refused`).to.equal(false);
  return result.error!.issues.map((i) => i.message);
}

describe('unit: auth request schemas', () => {
  it('login: trims the username, defaults rememberMe to false, refuses an unknown field', () => {
    expect(loginSchema.parse({ username: '  jana ', password: 'x' })).to.deep.equal({ username: 'jana', password: 'x', rememberMe: false });
    expect(loginSchema.parse({ username: 'jana', password: 'x', rememberMe: 1 }).rememberMe).to.equal(true);
    expect(messages(loginSchema, { username: '   ', password: 'x' })).to.deep.equal(['Používateľské meno je povinné']);
    expect(messages(loginSchema, { username: 'jana', password: 'x', remember: true })).to.deep.equal(['Neznáme pole: remember']);
    expect(messages(loginSchema, { username: 'jana', password: 'x', rememberMe: 'maybe' })[0]).to.match(/^rememberMe musí byť true alebo false/);
  });

  it('a password of 1024 characters is accepted (the policy judges it), 1025 is absurd input', () => {
    expect(loginSchema.safeParse({ username: 'j', password: 'p'.repeat(1024) }).success).to.equal(true);
    expect(messages(loginSchema, { username: 'j', password: 'p'.repeat(1025) })).to.deep.equal(['Heslo je príliš dlhé']);
    expect(messages(setPasswordSchema, {})).to.deep.equal(['Nové heslo je povinné']);
  });

  it('linking a mailbox: the address trimmed and checked, the password required', () => {
    expect(linkEmailSchema.parse({ email: ' jana@firma.sk ', emailPassword: 'pw' }).email).to.equal('jana@firma.sk');
    expect(messages(linkEmailSchema, { email: 'jana', emailPassword: '' })).to.deep.equal(['Neplatná emailová adresa', 'Heslo k emailu je povinné']);
  });
});

describe('unit: user and admin schemas', () => {
  it('usernames: 3 to 64 of letters without diacritics, digits and . _ - @', () => {
    expect(usernameSchema.parse(' jana.n@firma ')).to.equal('jana.n@firma');
    expect(messages(usernameSchema, 'ja')).to.deep.equal(['Používateľské meno musí mať aspoň 3 znaky']);
    expect(usernameSchema.safeParse('j'.repeat(64)).success).to.equal(true);
    expect(messages(usernameSchema, 'j'.repeat(65))).to.deep.equal(['Používateľské meno môže mať najviac 64 znakov']);
    for (const bad of ['jána', 'jana nová', 'jana;rm', '../x']) expect(messages(usernameSchema, bad)[0], bad).to.match(/len písmená bez diakritiky/);
  });

  it('a new user: role member by default; mail address and password only together', () => {
    expect(createUserBody.parse({ username: 'jana' })).to.include({ username: 'jana', role: 'member' });
    expect(messages(createUserBody, { username: 'jana', email: 'j@firma.sk' })).to.deep.equal(['Email a heslo k emailu sa zadávajú spolu']);
    expect(messages(createUserBody, { username: 'jana', role: 'boss' })).to.deep.equal(['Rola musí byť admin alebo member']);
    expect(messages(updateUserBody, {})).to.deep.equal(['Zadajte aspoň jednu zmenu (role, firstName, lastName)']);
    expect(updateUserBody.parse({ firstName: null })).to.deep.equal({ firstName: null });
  });

  it('deleting a user: a new owner or deletion of shared accounts, never both', () => {
    expect(deleteUserQuery.parse({ deleteSharedAccounts: 'true' })).to.deep.equal({ deleteSharedAccounts: true });
    expect(messages(deleteUserQuery, { newOwnerId: ID, deleteSharedAccounts: 'true' })).to.deep.equal(['Zvoľte buď newOwnerId, alebo deleteSharedAccounts']);
    expect(deleteUserQuery.safeParse({ newOwnerId: ID, deleteSharedAccounts: 'false' }).success).to.equal(true);
  });

  it('audit filters: ISO dates or instants with a zone, since before until, no year 0', () => {
    expect(isoInstant.parse('2024-05-01').toISOString()).to.equal('2024-05-01T00:00:00.000Z');
    expect(isoInstant.parse('2024-05-01T10:00:00+02:00').toISOString()).to.equal('2024-05-01T08:00:00.000Z');
    for (const bad of ['May 1 2024', '2024-05-01T10:00:00', '1714550400']) expect(isoInstant.safeParse(bad).success, bad).to.equal(false);
    expect(messages(isoInstant, '0000-01-01')).to.deep.equal(['Neplatný dátum']);
    expect(messages(auditLogQuery, { since: '2024-05-02', until: '2024-05-01' })).to.deep.equal(['since musí byť pred until']);
    expect(auditLogQuery.parse({ success: 'false' })).to.include({ success: false, page: 1, limit: 50 });
  });
});

describe('unit: contact and email schemas', () => {
  it('a contact address is stored lower-case; blank name or notes clear the field', () => {
    expect(createContactBody.parse({ emailAccountId: ID, email: ' Ana@X.sk ', name: '  ', notes: ' pozn. ' })).to.deep.equal({
      emailAccountId: ID,
      email: 'ana@x.sk',
      name: null,
      notes: 'pozn.',
    });
    expect(messages(createContactBody, { emailAccountId: 'x', email: 'ana@x.sk' })).to.deep.equal(['emailAccountId musí byť identifikátor emailového účtu']);
    expect(messages(updateContactBody, {})).to.deep.equal(['Zadajte aspoň jednu zmenu (name, notes)']);
    expect(messages(updateContactBody, { name: 'x'.repeat(201) })).to.deep.equal(['Meno môže mať najviac 200 znakov']);
    expect(updateContactBody.parse({ name: 'x'.repeat(200) }).name).to.have.length(200);
  });

  it('contact lists: sort lastEmail by default, search trimmed and not empty', () => {
    expect(listContactsQuery.parse({})).to.deep.equal({ page: 1, limit: 50, sort: 'lastEmail' });
    expect(messages(listContactsQuery, { search: '   ' })).to.deep.equal(['Hľadaný text je prázdny']);
    expect(messages(listContactsQuery, { sort: 'oldest' })).to.deep.equal(['sort musí byť lastEmail alebo name']);
  });

  it('email lists: "to" as a day includes the whole day; from must be before to', () => {
    const q = listEmailsQuery.parse({ from: '2024-05-01', to: '2024-05-01' });
    expect(q.from!.toISOString()).to.equal('2024-05-01T00:00:00.000Z');
    expect(q.to!.toISOString()).to.equal('2024-05-02T00:00:00.000Z');
    expect(listEmailsQuery.parse({ to: '2024-05-01T10:00:00Z' }).to!.toISOString()).to.equal('2024-05-01T10:00:00.001Z');
    expect(messages(listEmailsQuery, { from: '2024-05-02', to: '2024-05-01' })).to.deep.equal(['from musí byť pred to']);
    expect(messages(listEmailsQuery, { unread: 'yes' })).to.deep.equal(['Očakáva sa true alebo false']);
    expect(messages(listEmailsQuery, { search: '%%' })).to.deep.equal(['Hľadaný text musí obsahovať písmeno alebo číslicu']);
  });
});

describe('unit: email-account and sharing schemas', () => {
  it('an update needs a change; isPrimary can only be set, never cleared', () => {
    expect(messages(updateEmailAccountBody, {})[0]).to.match(/^Zadajte aspoň jednu zmenu/);
    expect(messages(updateEmailAccountBody, { isPrimary: false })[0]).to.match(/^isPrimary môže byť iba true/);
    expect(updateEmailAccountBody.parse({ isActive: false })).to.deep.equal({ isActive: false });
  });

  it('sharing: can read by default, cannot send; a viewer may never send; unknown rights are refused', () => {
    expect(shareBody.parse({ userId: ID, role: 'viewer' })).to.deep.equal({ userId: ID, role: 'viewer', canRead: true, canSend: false });
    expect(messages(shareBody, { userId: ID, role: 'viewer', canSend: true })).to.deep.equal(['Divák (viewer) nemôže odosielať; zvoľte rolu editor']);
    expect(messages(shareBody, { userId: ID, role: 'owner' })).to.deep.equal(['role musí byť editor alebo viewer']);
    expect(messages(shareBody, { userId: ID, role: 'editor', canDelete: true })).to.deep.equal(['Nepovolené pole (povolené sú userId, role, canRead, canSend)']);
    expect(messages(changeShareBody, {})).to.deep.equal(['Zadajte aspoň jednu zmenu (role, canRead, canSend)']);
    expect(changeShareBody.parse({ role: 'owner' })).to.deep.equal({ role: 'owner' });
  });
});

describe('unit: sending schemas', () => {
  it('recipients: an array, a comma list, or both; with or without a display name', () => {
    const body = replyBody.parse({ to: ['Ana Nová <ana@x.sk>, ben@x.sk', '"Cyril" <cy@x.sk>'], text: 'T' });
    expect(body.to).to.deep.equal([{ email: 'ana@x.sk', name: 'Ana Nová' }, { email: 'ben@x.sk' }, { email: 'cy@x.sk', name: 'Cyril' }]);
    expect(replyBody.parse({ to: '', text: 'T' }).to).to.deep.equal([]);
    expect(messages(replyBody, { to: 'ana@x.sk, nobody', text: 'T' })).to.deep.equal(['Neplatná emailová adresa: nobody']);
  });

  it('a new message needs an account or a contact; text is required; the subject fits one header line', () => {
    expect(messages(composeBody, { text: 'T' })).to.deep.equal(['Uveďte emailAccountId alebo contactId']);
    expect(messages(composeBody, { contactId: ID })).to.deep.equal(['Text správy je povinný']);
    expect(composeBody.safeParse({ contactId: ID, text: '', subject: 's'.repeat(998) }).success).to.equal(true);
    expect(messages(composeBody, { contactId: ID, text: '', subject: 's'.repeat(999) })).to.deep.equal(['Predmet je príliš dlhý (najviac 998 znakov)']);
  });

  it('reply-all comes as JSON or as a form field', () => {
    expect(replyBody.parse({ text: 'T', replyAll: 'true' }).replyAll).to.equal(true);
    expect(replyBody.parse({ text: 'T', replyAll: 0 }).replyAll).to.equal(false);
  });

  it('Idempotency-Key: 1 to 255 visible ASCII characters', () => {
    expect(idempotencyKey.safeParse('a'.repeat(255)).success).to.equal(true);
    for (const bad of ['', 'a'.repeat(256), 'with space', 'kľúč']) expect(idempotencyKey.safeParse(bad).success, bad).to.equal(false);
  });
});

describe('unit: timesheet schemas', () => {
  it('year and month are plain digits in range: no "1e3", "2026.0" or blanks through a coercion', () => {
    expect(uploadFieldsSchema.parse({ year: ' 2026 ', month: '3' })).to.deep.equal({ year: 2026, month: 3 });
    for (const year of ['1e3', '2026.0', '', '1999', '2101', '-2026'])
      expect(messages(uploadFieldsSchema, { year, month: '1' })[0], year).to.equal('Rok musí byť celé číslo od 2000 do 2100');
    for (const month of ['0', '13', '1.0', 'máj']) expect(messages(uploadFieldsSchema, { year: '2026', month })[0], month).to.equal('Mesiac musí byť celé číslo od 1 do 12');
    expect(ownListQuery.parse({ year: '2000', month: '12' })).to.deep.equal({ page: 1, limit: 50, year: 2000, month: 12 });
  });
});
