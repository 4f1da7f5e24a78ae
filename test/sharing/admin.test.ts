import { expect } from 'chai';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { AuditActions } from '../../src/audit/audit-service.js';
import { AuditLog, type EmailAccount, User } from '../../src/models/index.js';
import { cli, cliJson } from '../admin/cli-helpers.js';
import { sessionFor, type TestSession } from '../support/auth.js';
import { createUser, type UserFixture } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { createContact, createEmail, createEmailAccount } from '../support/email-factories.js';
import { memberRows, rowsOfAccount } from './helpers.js';

const admin = { kind: 'admin' } as const;

/** An account of `owner` with a contact and an email, shared with `members` (as editors). */
async function sharedAccountOf(owner: UserFixture, members: UserFixture[] = []): Promise<EmailAccount> {
  const ctx = await testContext();
  const account = await createEmailAccount(owner, { isPrimary: false });
  await createEmail(account, await createContact(account));
  for (const m of members) await ctx.services.emailAccountSharing.share(admin, account.id, { userId: m.user.id, role: 'editor', canRead: true, canSend: false }, { actor: 'test' });
  return account;
}

/** Who email_accounts, contacts and emails name as the account's owner. */
async function ownersNamed(accountId: string): Promise<string[]> {
  const ctx = await testContext();
  const rows = await ctx.db.sequelize.query<{ user_id: string }>(
    `SELECT user_id::text FROM email_accounts WHERE id = $1 UNION SELECT user_id::text FROM contacts WHERE email_account_id = $1
      UNION SELECT user_id::text FROM emails WHERE email_account_id = $1`,
    { bind: [accountId], type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.user_id);
}

describe('administering shares: crm-admin and /api/admin', function () {
  this.timeout(180_000);

  describe('crm-admin email-accounts share | members | unshare', () => {
    it('shares, changes a share, lists the members, refuses to remove the owner and hands the ownership over; audited as the CLI', async () => {
      const [owner, jana, peter] = [await createUser(), await createUser(), await createUser()];
      const account = await sharedAccountOf(owner);

      const shared = await cliJson(['email-accounts', 'share', account.id, '--user', jana.username, '--role', 'editor', '--can-send']);
      expect(shared).to.deep.include({ created: true });
      expect(shared.member).to.include({ userId: jana.user.id, role: 'editor', canRead: true, canSend: true, emailAccountId: account.id });
      const changed = await cliJson(['email-accounts', 'share', account.id, '--user', jana.username, '--role', 'viewer', '--no-read']);
      expect(changed).to.deep.include({ created: false });
      expect(changed.member).to.include({ role: 'viewer', canRead: false, canSend: false });
      const viewerSends = await cli(['email-accounts', 'share', account.id, '--user', jana.username, '--role', 'viewer', '--can-send']);
      expect(viewerSends.status).to.equal(1);
      expect(viewerSends.stderr).to.contain('Divák');

      const members = await cliJson(['email-accounts', 'members', account.id]);
      expect(members.items.map((m: { username: string; role: string }) => [m.username, m.role])).to.deep.equal([
        [owner.username, 'owner'],
        [jana.username, 'viewer'],
      ]);
      expect((await cli(['email-accounts', 'members', account.id])).stdout).to.match(new RegExp(`${jana.username}\\s+${jana.user.id}\\s+viewer\\s+no\\s+no`));

      const ownerOut = await cli(['email-accounts', 'unshare', account.id, '--user', owner.username]);
      expect(ownerOut.status).to.equal(1);
      expect(ownerOut.stderr).to.contain('Vlastníka');
      expect((await cliJson(['email-accounts', 'unshare', account.id, '--user', jana.username])).removed).to.include({ userId: jana.user.id, role: 'viewer' });
      expect((await cli(['email-accounts', 'unshare', account.id, '--user', jana.username])).status).to.equal(1);

      const handed = await cliJson(['email-accounts', 'share', account.id, '--user', peter.username, '--role', 'owner']);
      expect(handed.member).to.include({ userId: peter.user.id, role: 'owner', canRead: true, canSend: true });
      expect(await memberRows(await testContext(), account.id)).to.deep.equal({ [owner.user.id]: 'editor', [peter.user.id]: 'owner' });
      expect(await ownersNamed(account.id)).to.deep.equal([peter.user.id]);

      expect((await cli(['email-accounts', 'share', '00000000-0000-4000-8000-000000000000', '--user', jana.username, '--role', 'editor'])).status).to.equal(1);
      expect((await cli(['email-accounts', 'share', 'not-an-id', '--user', jana.username, '--role', 'editor'])).status).to.equal(1);
      expect((await cli(['email-accounts', 'share', account.id, '--role', 'editor'])).status).to.equal(2);
      expect((await cli(['email-accounts', 'share', account.id, '--user', jana.username, '--role', 'admin'])).status).to.equal(2);

      const records = await AuditLog.findAll({
        where: { action: [AuditActions.emailAccountShared, AuditActions.emailAccountShareChanged, AuditActions.emailAccountUnshared, AuditActions.emailAccountOwnerChanged] },
      });
      const mine = records.filter((r) => (r.details as { emailAccountId?: string }).emailAccountId === account.id);
      expect(mine.map((r) => r.action).sort()).to.deep.equal(
        [AuditActions.emailAccountOwnerChanged, AuditActions.emailAccountShareChanged, AuditActions.emailAccountShared, AuditActions.emailAccountUnshared].sort(),
      );
      for (const r of mine) {
        expect(r.actor).to.match(/^cli:.+/);
        expect(r.details).to.include({ by: null });
      }
    });
  });

  describe('deleting a user who owns shared accounts (crm-admin users delete)', () => {
    it('refuses without a choice, hands the accounts to --new-owner, and ends the user’s own shares', async () => {
      const [owner, member, other] = [await createUser(), await createUser(), await createUser()];
      const account = await sharedAccountOf(owner, [member]);
      const othersAccount = await sharedAccountOf(other, [owner]);

      const refused = await cli(['users', 'delete', owner.username]);
      expect(refused.status).to.equal(2);
      expect(refused.stderr).to.contain('--new-owner');
      expect(await User.findByPk(owner.user.id)).to.not.equal(null);
      expect((await cli(['users', 'delete', owner.username, '--yes', '--new-owner', owner.username])).status).to.equal(1);

      const out = await cliJson(['users', 'delete', owner.username, '--yes', '--new-owner', member.username]);
      expect(out).to.deep.equal({ deleted: { id: owner.user.id, username: owner.username }, handedOver: [account.id], deletedSharedAccounts: [] });
      expect(await User.findByPk(owner.user.id)).to.equal(null);
      expect(await ownersNamed(account.id)).to.deep.equal([member.user.id]);
      const ctx = await testContext();
      expect(await memberRows(ctx, account.id)).to.deep.equal({ [member.user.id]: 'owner' });
      expect(await memberRows(ctx, othersAccount.id)).to.deep.equal({ [other.user.id]: 'owner' });
      const ended = await AuditLog.findAll({ where: { action: AuditActions.emailAccountUnshared, userId: null } });
      expect(ended.some((r) => (r.details as { emailAccountId?: string; reason?: string }).emailAccountId === othersAccount.id)).to.equal(true);
      const deletion = await AuditLog.findOne({ where: { action: AuditActions.userDeleted, username: owner.username } });
      expect(deletion?.details).to.deep.include({ sharedAccountsHandedTo: member.user.id, sharedAccounts: [account.id] });
    });

    it('with --yes alone deletes the shared accounts with their data, saying so', async () => {
      const [owner, member] = [await createUser(), await createUser()];
      const account = await sharedAccountOf(owner, [member]);
      const res = await cli(['users', 'delete', owner.username, '--yes']);
      expect(res.status, res.stderr).to.equal(0);
      expect(res.stdout).to.contain(`Deleted shared email account ${account.email}`);
      expect(await rowsOfAccount(await testContext(), account.id)).to.deep.equal({ members: 0, contacts: 0, emails: 0, links: 0, sync_states: 0, suppressions: 0, accounts: 0 });
    });
  });

  describe('/api/admin', () => {
    let app: Express;
    let adminSession: TestSession;
    before(async () => {
      app = await testApp();
      adminSession = await sessionFor(await createUser({ role: 'admin' }));
    });
    const asAdmin = (t: request.Test) => t.set('Authorization', adminSession.bearer);

    it('DELETE /api/admin/users/:id: 409 listing the shared accounts without a choice; newOwnerId or deleteSharedAccounts=true decide', async () => {
      const [owner, member] = [await createUser(), await createUser()];
      const account = await sharedAccountOf(owner, [member]);
      const refused = await asAdmin(request(app).delete(`/api/admin/users/${owner.user.id}`));
      expect(refused.status).to.equal(409);
      expect(refused.body.error.code).to.equal('shared_account_owner');
      expect(refused.body.error.details.sharedAccounts).to.deep.equal([{ emailAccountId: account.id, email: account.email, members: 1 }]);
      expect((await asAdmin(request(app).delete(`/api/admin/users/${owner.user.id}?newOwnerId=${member.user.id}&deleteSharedAccounts=true`))).status).to.equal(400);
      expect((await asAdmin(request(app).delete(`/api/admin/users/${owner.user.id}?newOwnerId=nie`))).status).to.equal(400);
      expect((await asAdmin(request(app).delete(`/api/admin/users/${owner.user.id}?newOwnerId=00000000-0000-4000-8000-000000000000`))).status).to.equal(404);
      expect(await User.findByPk(owner.user.id)).to.not.equal(null);
      expect((await asAdmin(request(app).delete(`/api/admin/users/${owner.user.id}?newOwnerId=${member.user.id}`))).status).to.equal(200);
      expect(await ownersNamed(account.id)).to.deep.equal([member.user.id]);

      const [owner2, member2] = [await createUser(), await createUser()];
      const account2 = await sharedAccountOf(owner2, [member2]);
      expect((await asAdmin(request(app).delete(`/api/admin/users/${owner2.user.id}?deleteSharedAccounts=true`))).status).to.equal(200);
      expect((await rowsOfAccount(await testContext(), account2.id)).accounts).to.equal(0);
    });

    it('manages the shares of any account: list, share (409 twice), change, transfer, and never removes the owner', async () => {
      const [owner, jana] = [await createUser(), await createUser()];
      const account = await sharedAccountOf(owner);
      const base = `/api/admin/email-accounts/${account.id}`;
      const created = await asAdmin(request(app).post(`${base}/share`)).send({ userId: jana.user.id, role: 'viewer', canRead: false });
      expect(created.status).to.equal(201);
      expect(created.body.data.member).to.include({ role: 'viewer', canRead: false, canSend: false, username: jana.username });
      expect((await asAdmin(request(app).post(`${base}/share`)).send({ userId: jana.user.id, role: 'editor' })).body.error.code).to.equal('share_exists');
      const changed = await asAdmin(request(app).patch(`${base}/share/${jana.user.id}`)).send({ role: 'editor', canSend: true });
      expect(changed.body.data.member).to.include({ role: 'editor', canRead: false, canSend: true });
      const removeOwner = await asAdmin(request(app).delete(`${base}/share/${owner.user.id}`));
      expect([removeOwner.status, removeOwner.body.error.code]).to.deep.equal([409, 'owner_required']);
      const transfer = await asAdmin(request(app).patch(`${base}/share/${jana.user.id}`)).send({ role: 'owner' });
      expect(transfer.body.data.member).to.include({ role: 'owner', canRead: true, canSend: true });
      const listed = await asAdmin(request(app).get(`${base}/users`));
      expect(listed.body.data.items.map((m: { userId: string; role: string }) => [m.userId, m.role])).to.deep.equal([
        [jana.user.id, 'owner'],
        [owner.user.id, 'editor'],
      ]);
      expect((await asAdmin(request(app).delete(`${base}/share/${owner.user.id}`))).status).to.equal(200);
      expect((await asAdmin(request(app).get('/api/admin/email-accounts/00000000-0000-4000-8000-000000000000/users'))).status).to.equal(404);
    });
  });
});
