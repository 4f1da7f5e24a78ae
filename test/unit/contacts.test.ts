/**
 * ContactService rules on their own, with hand-written fakes for its repository and collaborators
 * (no database): what the service decides, not what the SQL does.
 */
import { expect } from 'chai';
import { ForeignKeyConstraintError, UniqueConstraintError } from 'sequelize';
import type { AuditService } from '../../src/audit/audit-service.js';
import type { ContactRepository, ContactEdits, NewContactRow } from '../../src/contacts/contact-repository.js';
import { CONTACT_NOT_FOUND, ContactService } from '../../src/contacts/contact-service.js';
import type { ContactRecord } from '../../src/contacts/contact-records.js';
import type { Transactions, Tx } from '../../src/db/transactions.js';
import { ACCOUNT_NOT_FOUND, type EmailAccountAccess } from '../../src/email-accounts/account-access.js';
import { AppError } from '../../src/errors/app-errors.js';
import type { Contact } from '../../src/models/index.js';

const USER = 'user-1';
const OWNER = 'owner-1';
const ACCOUNT = 'account-1';

/** A fake repository that remembers what the service asked of it; `overrides` replace single methods. */
function fakeContacts(overrides: Partial<Record<keyof ContactRepository, unknown>> = {}) {
  const calls = { exists: [] as string[], created: [] as NewContactRow[], updated: [] as ContactEdits[] };
  const repo = {
    existsByAddress: async (_accountId: string, email: string) => {
      calls.exists.push(email);
      return false;
    },
    liftSuppression: async () => {},
    // The owner as the locked account row names it (an editor's contact still carries the owner).
    lockAccountOwner: async () => OWNER,
    // The company of the address's domain, as the sync files it (company-assignment.ts).
    companyIdFor: async () => 'company-1',
    create: async (values: NewContactRow) => {
      calls.created.push(values);
      return { id: 'contact-1' } as Contact;
    },
    linkEarlierEmails: async () => {},
    update: async (_userId: string, _contactId: string, values: ContactEdits) => {
      calls.updated.push(values);
      return 1;
    },
    findRecord: async (_userId: string, contactId: string) => ({ id: contactId }) as ContactRecord,
    ...overrides,
  };
  return { repo: repo as unknown as ContactRepository, calls };
}

function service(contacts: ContactRepository): ContactService {
  const transactions: Transactions = { run: (work) => work({} as Tx) };
  // The caller is an editor of OWNER's account: allowed; the row must carry the owner as read under
  // the lock (lockAccountOwner), not the caller nor the owner the unlocked access check saw.
  const accounts = {
    requireAccount: async (_userId: string, accountId: string) => ({ emailAccountId: accountId, ownerId: 'owner-before-a-hand-over', allowed: true }),
    requireContact: async () => ({ emailAccountId: ACCOUNT, ownerId: OWNER, allowed: true }),
  } as unknown as EmailAccountAccess;
  const audit = { record: async () => {} } as unknown as AuditService;
  return new ContactService({ contacts, accounts, transactions, audit });
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected the call to fail');
}

describe('unit: ContactService', () => {
  describe('create', () => {
    it('checks and stores the address trimmed and lower-cased', async () => {
      const { repo, calls } = fakeContacts();
      await service(repo).create(USER, { emailAccountId: ACCOUNT, email: '  Klient@Partner.TEST ' }, {});
      expect(calls.exists).to.deep.equal(['klient@partner.test']);
      expect(calls.created.map((c) => c.email)).to.deep.equal(['klient@partner.test']);
      expect(calls.created[0]).to.include({ userId: OWNER, emailAccountId: ACCOUNT, name: null, notes: null, companyId: 'company-1' });
    });

    it('answers 409 for an existing address without inserting', async () => {
      const { repo, calls } = fakeContacts({ existsByAddress: async () => true });
      const err = await failure(service(repo).create(USER, { emailAccountId: ACCOUNT, email: 'a@b.test' }, {}));
      expect([err.statusCode, err.message]).to.deep.equal([409, 'Kontakt už existuje']);
      expect(calls.created).to.deep.equal([]);
    });

    it('turns a racing insert (unique violation) into the same 409 and a vanished account (foreign key) into its 404', async () => {
      const racing = fakeContacts({ create: async () => Promise.reject(new UniqueConstraintError({})) });
      const duplicate = await failure(service(racing.repo).create(USER, { emailAccountId: ACCOUNT, email: 'a@b.test' }, {}));
      expect([duplicate.statusCode, duplicate.message]).to.deep.equal([409, 'Kontakt už existuje']);

      const vanished = fakeContacts({ create: async () => Promise.reject(new ForeignKeyConstraintError({})) });
      const gone = await failure(service(vanished.repo).create(USER, { emailAccountId: ACCOUNT, email: 'a@b.test' }, {}));
      expect([gone.statusCode, gone.message]).to.deep.equal([404, ACCOUNT_NOT_FOUND]);

      const deleted = fakeContacts({ lockAccountOwner: async () => undefined });
      const none = await failure(service(deleted.repo).create(USER, { emailAccountId: ACCOUNT, email: 'a@b.test' }, {}));
      expect([none.statusCode, none.message]).to.deep.equal([404, ACCOUNT_NOT_FOUND]);
      expect(deleted.calls.created).to.deep.equal([]);
    });
  });

  describe('update', () => {
    it('changes only the fields given (null clears, absent keeps)', async () => {
      const { repo, calls } = fakeContacts();
      await service(repo).update(USER, 'contact-1', { notes: null });
      expect(calls.updated).to.deep.equal([{ notes: null }]);
    });

    it('answers 404 when no row of the caller changed', async () => {
      const { repo } = fakeContacts({ update: async () => 0 });
      const err = await failure(service(repo).update(USER, 'someone-elses', { name: 'X' }));
      expect([err.statusCode, err.message]).to.deep.equal([404, CONTACT_NOT_FOUND]);
    });
  });
});
