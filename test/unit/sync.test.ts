/**
 * Rules of the mail sync that need no database and no mail server: the outcome and backoff a failed
 * run records, and which emails and contacts a batch writes. The repositories are small fakes that
 * record what they were asked.
 */
import { expect } from 'chai';
import type { Transactions, Tx } from '../../src/db/transactions.js';
import { JmapAuthError, JmapUnreachableError } from '../../src/jmap/index.js';
import { createLogger } from '../../src/logging/logger.js';
import type { EmailAccount } from '../../src/models/index.js';
import type { AccountLease } from '../../src/sync/account-lease.js';
import { BatchWriter } from '../../src/sync/batch-writer.js';
import type { MappedEmail } from '../../src/sync/email-mapper.js';
import type { EmailRow, KnownAddress, MailStoreRepository } from '../../src/sync/mail-store-repository.js';
import type { Finish, StateRow, SyncRepository } from '../../src/sync/sync-repository.js';
import { SyncService } from '../../src/sync/sync-service.js';

const logger = createLogger('error', { silent: true });
const noTransactions: Transactions = { run: (work) => work({} as Tx) };
const account = { id: 'acc-1', userId: 'user-1', email: 'me@example.test', jmapAccountId: 'me@example.test', emailPassword: 'x' } as EmailAccount;

/** A sync state whose lease can be taken, after `failures` failed runs in a row. */
function fakeSyncRepository(failures: number): { repository: SyncRepository; finished: Finish[] } {
  const finished: Finish[] = [];
  const state: StateRow = {
    status: 'error',
    email_state: null,
    full_sync_checkpoint: null,
    consecutive_failures: failures,
    acquired: true,
    syncable: true,
    leased: false,
    due: true,
    locked_by: null,
    locked_until: null,
  };
  const repository = {
    ensureStateRow: async () => {},
    lockState: async () => state,
    takeLease: async () => {},
    findAccount: async () => account,
    finishLease: async (_lease: unknown, result: Finish) => {
      finished.push(result);
    },
  } as unknown as SyncRepository;
  return { repository, finished };
}

function serviceFailingWith(err: Error, repository: SyncRepository): SyncService {
  return new SyncService({
    repository,
    mailStore: {} as MailStoreRepository,
    transactions: noTransactions,
    logger,
    clientFor: () => {
      throw err;
    },
  });
}

describe('unit: sync run outcomes', () => {
  it('a failing run records status error with the backoff of its place in the failure series', async () => {
    const { repository, finished } = fakeSyncRepository(2);
    const result = await serviceFailingWith(new JmapUnreachableError('connection refused', 'ECONNREFUSED'), repository).syncAccount(account.id);
    expect(result).to.include({ outcome: 'error', failureReason: 'unreachable', fetched: 0, stored: 0 });
    // The third failure in a row: 1, 2, then 4 minutes.
    expect(finished).to.deep.equal([{ outcome: 'error', message: 'Poštový server nie je dostupný.', backoffMinutes: 4 }]);
  });

  it('refused credentials stop the account (auth_failed) instead of backing off', async () => {
    const { repository, finished } = fakeSyncRepository(0);
    const result = await serviceFailingWith(new JmapAuthError(401), repository).syncAccount(account.id);
    expect(result.outcome).to.equal('auth_failed');
    expect(finished).to.have.length(1);
    expect(finished[0].outcome).to.equal('auth_failed');
  });
});

function mail(jmapId: string, people: Array<{ email: string; name: string | null }>, included = true): MappedEmail {
  return {
    jmapId,
    included,
    messageId: `${jmapId}@example.test`,
    threadId: null,
    inReplyTo: null,
    from: null,
    to: null,
    subject: jmapId,
    body: null,
    isRead: false,
    date: new Date('2024-01-01T00:00:00Z'),
    participants: people.map((p) => p.email),
    correspondents: people,
    hasAttachments: false,
    outbound: false,
    addresses: { from: [], to: [], cc: [], replyTo: [] },
  };
}

/** A mail store that knows some addresses and records every write. */
function fakeMailStore(known: Record<string, KnownAddress>) {
  const writes = { deleted: [] as string[], upsertedPeople: [] as string[], storedEmails: [] as EmailRow[] };
  const store = {
    lookupAddresses: async (_a: unknown, addresses: string[]) => new Map(addresses.filter((a) => known[a]).map((a) => [a, known[a]])),
    deleteEmailsByJmapIds: async (_id: string, ids: string[]) => {
      writes.deleted.push(...ids);
      return { deleted: ids.length, contactIds: [] };
    },
    sweepUnseen: async () => ({ deleted: 0, contactIds: [] }),
    forgetSeen: async () => {},
    recomputeLastEmailAt: async () => {},
    upsertContacts: async (_a: unknown, people: Array<{ email: string }>) => {
      writes.upsertedPeople.push(...people.map((p) => p.email));
      return people.map((p) => ({ id: `c-${p.email}`, email: p.email, inserted: !known[p.email] }));
    },
    upsertEmails: async (_a: unknown, rows: EmailRow[]) => {
      writes.storedEmails.push(...rows);
      return { stored: rows, inserted: rows.length, insertedIds: rows.map((r) => r.mapped.jmapId) };
    },
    linkEarlierEmails: async () => {},
  } as unknown as MailStoreRepository;
  return { store, writes };
}

describe('unit: sync batch rules', () => {
  const lease = { account, fullSync: null, checkpoint: async () => {}, wakeEventFollowers: async () => {} } as unknown as AccountLease;

  it('mail with only deleted (suppressed) contacts or out of reach gets no row; known named contacts are not rewritten', async () => {
    const { store, writes } = fakeMailStore({
      'gone@example.test': { suppressed: true, contactId: null, hasName: false },
      'known@example.test': { suppressed: false, contactId: 'c-known', hasName: true },
    });
    const result = await new BatchWriter(store, noTransactions, lease).apply({
      emails: [
        mail('m1', [{ email: 'gone@example.test', name: 'Gone' }]),
        mail('m2', [
          { email: 'known@example.test', name: 'Known' },
          { email: 'new@example.test', name: null },
        ]),
        mail('m3', [{ email: 'new@example.test', name: 'New' }], false),
      ],
      checkpoint: {},
    });
    expect(writes.deleted.sort()).to.deep.equal(['m1', 'm3']);
    expect(writes.upsertedPeople).to.deep.equal(['new@example.test']);
    expect(writes.storedEmails.map((r) => [r.mapped.jmapId, r.contactId, r.contactIds])).to.deep.equal([['m2', 'c-known', ['c-known', 'c-new@example.test']]]);
    expect(result).to.deep.equal({ stored: 1, emailsCreated: 1, deleted: 2, contactsCreated: 1, createdReceivedAt: [new Date('2024-01-01T00:00:00Z')] });
  });

  it('a contact without a name is written again when the mail has one', async () => {
    const { store, writes } = fakeMailStore({ 'known@example.test': { suppressed: false, contactId: 'c-known', hasName: false } });
    await new BatchWriter(store, noTransactions, lease).apply({ emails: [mail('m1', [{ email: 'known@example.test', name: 'Known' }])], checkpoint: {} });
    expect(writes.upsertedPeople).to.deep.equal(['known@example.test']);
  });
});
