import { expect } from 'chai';
import type { AuditService } from '../../src/audit/audit-service.js';
import type { SecretBox } from '../../src/crypto/secret-box.js';
import type { Transactions, Tx } from '../../src/db/transactions.js';
import { ConflictError } from '../../src/errors/app-errors.js';
import type { AccountWithSync, EmailAccountRepository, NewEmailAccount } from '../../src/email-accounts/email-account-repository.js';
import { EmailAccountService } from '../../src/email-accounts/email-account-service.js';
import type { CredentialThrottle } from '../../src/email-accounts/credential-throttle.js';
import type { EmailAccountAccess } from '../../src/email-accounts/account-access.js';
import type { EmailAccountMemberRepository } from '../../src/email-accounts/member-repository.js';

/**
 * EmailAccountService.add() without a database: a hand-written repository that keeps one user's
 * accounts in an array, so that only the service's own rules are under test.
 */
function fakeWorld(existing: Array<{ email: string }> = []) {
  const created: NewEmailAccount[] = [];
  const validated: string[] = [];
  const syncRequested: string[] = [];
  const rows = [...existing];
  const accounts = {
    findByEmail: async (_userId: string, email: string) => rows.find((r) => r.email === email) ?? null,
    lockOwner: async (userId: string) => ({ id: userId, username: 'jana' }),
    countOfUser: async () => rows.length,
    create: async (values: NewEmailAccount) => {
      created.push(values);
      rows.push(values);
      return { ...values, id: `account-${rows.length}` } as unknown as AccountWithSync;
    },
  } as unknown as EmailAccountRepository;
  const transactions: Transactions = { run: (work) => work({} as Tx) };
  const service = new EmailAccountService({
    accounts,
    // add() asks no access question and reads no member row: the owner row comes from a trigger (migration 0009).
    members: {} as unknown as EmailAccountMemberRepository,
    access: {} as unknown as EmailAccountAccess,
    transactions,
    secretBox: { encrypt: (plain: string) => `sealed:${plain}` } as unknown as SecretBox,
    audit: { record: async () => {} } as unknown as AuditService,
    validate: async ({ email }) => {
      validated.push(email);
      return { accountId: 'jmap-1' };
    },
    clientFactory: () => {
      throw new Error('not used');
    },
    throttle: { reserve: async () => {}, release: async () => {} } as unknown as CredentialThrottle,
    syncRequests: {
      requestSync: async (accountId: string) => {
        syncRequested.push(accountId);
      },
    },
  });
  return { service, created, validated, syncRequested };
}

describe('unit: email accounts (EmailAccountService.add)', () => {
  it('makes the first account of a user the primary one, and later ones not', async () => {
    const { service, created } = fakeWorld();
    await service.add('user-1', { email: 'first@example.test', emailPassword: 'pw1' }, {});
    await service.add('user-1', { email: 'second@example.test', emailPassword: 'pw2' }, {});
    expect(created.map((c) => [c.email, c.isPrimary])).to.deep.equal([
      ['first@example.test', true],
      ['second@example.test', false],
    ]);
    expect(created[0].emailPassword).to.equal('sealed:pw1');
  });

  it('asks for a sync of every account it adds, whoever calls (HTTP, crm-admin, user creation)', async () => {
    const { service, syncRequested } = fakeWorld();
    const first = await service.add('user-1', { email: 'first@example.test', emailPassword: 'pw1' }, {});
    const second = await service.add('user-1', { email: 'second@example.test', emailPassword: 'pw2' }, {});
    expect(syncRequested).to.deep.equal([first.id, second.id]);
  });

  it("inside a caller's transaction, asks for the sync only once that transaction commits", async () => {
    const { service, syncRequested } = fakeWorld();
    const hooks: Array<() => unknown> = [];
    const outer = { afterCommit: (hook: () => unknown) => hooks.push(hook) } as unknown as Tx;
    const verified = await service.verifyCredentials('user-1', { email: 'first@example.test', emailPassword: 'pw1' }, {});
    const account = await service.addVerified('user-1', verified, {}, {}, outer);
    expect(syncRequested, 'before the commit').to.deep.equal([]);
    for (const hook of hooks) await hook();
    expect(syncRequested).to.deep.equal([account.id]);
  });

  it('refuses an address already attached (case and spaces aside) with 409, before asking the mail server', async () => {
    const { service, created, validated } = fakeWorld([{ email: 'jana@example.test' }]);
    const err = await service.add('user-1', { email: '  Jana@Example.TEST ', emailPassword: 'pw' }, {}).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ConflictError);
    expect((err as ConflictError).message).to.equal('Tento emailový účet je už pripojený');
    expect(validated).to.deep.equal([]);
    expect(created).to.deep.equal([]);
  });

  it('asks for no sync when the account was refused', async () => {
    const { service, syncRequested, created } = fakeWorld([{ email: 'jana@example.test' }]);
    const err = await service.add('user-1', { email: 'jana@example.test', emailPassword: 'pw' }, {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    // Refused for being attached already (not for a fault of the fake world), and so nothing to sync.
    expect(err).to.be.instanceOf(ConflictError);
    expect(created).to.deep.equal([]);
    expect(syncRequested).to.deep.equal([]);
  });
});
