/**
 * Applies one batch of server facts (emails as they are now, ids destroyed) to the database in ONE
 * transaction together with the run's checkpoint: a crash before the commit replays the batch, a
 * crash after it resumes from the checkpoint, and nothing is lost or doubled either way.
 */
import { isUniqueViolation } from '../db/db-errors.js';
import type { Transactions, Tx } from '../db/transactions.js';
import type { AccountLease } from './account-lease.js';
import type { Correspondent, MappedEmail } from './email-mapper.js';
import type { AccountRef, EmailRow, MailStoreRepository, UpsertOptions } from './mail-store-repository.js';
import type { CheckpointFields } from './sync-repository.js';

export interface BatchInput {
  emails: MappedEmail[];
  /** JMAP ids gone from the server. */
  destroyed?: string[];
  checkpoint: CheckpointFields;
  /**
   * What a full sync has seen (full_sync_seen): 'forget' it (a new full sync begins, or one that began
   * on an empty mailbox ends), or 'sweep' (a full sync's final batch: delete the account's rows it did
   * not see, then forget).
   */
  seen?: 'forget' | 'sweep';
  /** More writes that must commit with the batch, in its transaction (a resync's progress, resync-repository.ts). */
  alongside?: (tx: Tx) => Promise<void>;
}

export interface BatchResult {
  /** Rows inserted or refreshed. */
  stored: number;
  /** Of those, new rows. */
  emailsCreated: number;
  deleted: number;
  contactsCreated: number;
  /** When the server received each new row (receivedAt), for the sync lag metric. */
  createdReceivedAt: Date[];
}

/** Which mapped emails may be stored at all (src/privacy/suppression-filter.ts; MailAdmission in sync-types.ts). */
export interface MailGate {
  /** The page as it may be written: an email the CRM must not hold comes back with included = false (any row of it goes). */
  /** Asked inside the batch's transaction (tx), so it needs no second pooled connection. */
  admit(emails: MappedEmail[], tx?: Tx): Promise<MappedEmail[]>;
}

export class BatchWriter {
  private readonly account: AccountRef;
  /**
   * Set for the first sync of a mailbox with no rows: its emails are inserted without ON CONFLICT
   * (see MailStoreRepository.upsertEmails) until one collides with a row another writer stored.
   */
  expectNewEmails = false;

  constructor(
    private readonly store: MailStoreRepository,
    private readonly transactions: Transactions,
    private readonly lease: AccountLease,
    /** What may be stored at all (erased addresses, retention); asked inside each batch's transaction. */
    private readonly gate?: MailGate,
  ) {
    this.account = { id: lease.account.id, userId: lease.account.userId };
  }

  async apply(input: BatchInput): Promise<BatchResult> {
    if (!this.expectNewEmails) return this.write(input, false);
    try {
      return await this.write(input, true);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // A sent email written meanwhile, or a query restarted from the top: the batch (rolled back,
      // checkpoint included) is written again as an upsert, and so is the rest of the run.
      this.expectNewEmails = false;
      return this.write(input, false);
    }
  }

  /** Whether the account has no stored email at all (before a first sync decides how to insert). */
  async mailboxIsEmpty(): Promise<boolean> {
    return !(await this.store.hasEmails(this.account.id));
  }

  private async write(input: BatchInput, allNew: boolean): Promise<BatchResult> {
    const result = await this.writeInTransaction(input, allNew);
    // The checkpoint deferred the triggers' notification to here, after the commit (migration 0071):
    // one wake-up per batch, and the commit never queued on the notification lock. Not awaited: the
    // next page need not wait for it (it takes another pooled connection). A failed wake-up only
    // delays the events until the next one (or the follower's safety read), so it fails nothing.
    void this.lease.wakeEventFollowers().catch(() => undefined);
    return result;
  }

  private writeInTransaction(input: BatchInput, allNew: boolean): Promise<BatchResult> {
    const { store, account } = this;
    return this.transactions.run(async (tx) => {
      // First: a run that lost its lease must not write anything.
      // Everything here can be fetched again, and a batch commits together with its checkpoint: if
      // PostgreSQL crashes before the WAL reaches disk, both are lost and the batch is simply redone.
      // So the batch need not wait for the disk (the last synchronous commit flushes it anyway).
      await this.lease.checkpoint(input.checkpoint, tx, { relaxDurability: true });
      // The gate is asked only now, with the account's sync state row locked by the checkpoint: an
      // erasure commits its suppression before it takes that lock, so whatever it erases is either
      // seen here or deleted after this batch commits. Asked before the lock, a batch could write an
      // address erased in between.
      const emails = this.gate && input.emails.length > 0 ? await this.gate.admit(input.emails, tx) : input.emails;
      // Under way (after this checkpoint): a full sync's pages, or a resync between two of its runs.
      // One that began on an empty mailbox sweeps nothing, so it need not record anything.
      const fullSync = this.lease.fullSync;
      const recordSeen = fullSync !== null && fullSync.startedEmpty !== true;
      const result = await writeEmails(store, account, { ...input, emails, allNew, recordSeen }, tx);
      await input.alongside?.(tx);
      return result;
    });
  }
}

/** A batch's emails and deletes, whether all are known to be new, and whether a full sync is under way (UpsertOptions). */
type EmailsToWrite = Pick<BatchInput, 'emails' | 'destroyed' | 'seen'> & UpsertOptions;

/**
 * The batch's rows, inside the caller's transaction: deletes, contacts, emails and their links. Used
 * by the sync (with its checkpoint) and by sending (the sent email, written at once from the JMAP
 * answer; the next sync finds it by its JMAP id and only refreshes it).
 */
export async function writeEmails(store: MailStoreRepository, account: AccountRef, input: EmailsToWrite, tx: Tx): Promise<BatchResult> {
  const { allNew = false, recordSeen = false } = input;
  const latest = dedupe(input.emails);
  const addresses = unique(latest.filter((m) => m.included).flatMap((m) => [...m.correspondents.map((c) => c.email), ...m.participants]));
  const known = await store.lookupAddresses(account, addresses, tx);
  const keep: Array<{ mapped: MappedEmail; people: Correspondent[] }> = [];
  const drop = new Set(input.destroyed ?? []);
  for (const mapped of latest) {
    const people = mapped.included ? mapped.correspondents.filter((c) => !known.get(c.email)?.suppressed) : [];
    // Nobody left to file it under (bulk, robots, deleted contacts) or out of reach (Trash): no row.
    if (people.length === 0) drop.add(mapped.jmapId);
    else keep.push({ mapped, people });
  }

  // Deletes first: they may free a Message-ID that an upsert below needs.
  const removed = await store.deleteEmailsByJmapIds(account.id, [...drop], tx);
  const swept = input.seen === 'sweep' ? await store.sweepUnseen(account.id, tx) : { deleted: 0, contactIds: [] };
  if (input.seen === 'forget') await store.forgetSeen(account.id, tx);
  await store.recomputeLastEmailAt(unique([...removed.contactIds, ...swept.contactIds]), tx);

  // Only people who are not contacts yet, or whose contact lacks a name the mail has, need a write.
  const needed = mergePeople(keep.flatMap((k) => k.people)).filter((p) => {
    const k = known.get(p.email);
    return !k?.contactId || (!k.hasName && p.name !== null);
  });
  const upserted = await store.upsertContacts(account, needed, tx);
  const contactIdOf = new Map<string, string>();
  for (const [address, k] of known) if (k.contactId) contactIdOf.set(address, k.contactId);
  for (const c of upserted) contactIdOf.set(c.email, c.id);

  const rows: EmailRow[] = keep.map(({ mapped, people }) => {
    const main = contactIdOf.get(people[0].email)!;
    const linked = [...people.map((p) => p.email), ...mapped.participants].map((a) => contactIdOf.get(a)).filter((id): id is string => !!id);
    return { mapped, contactId: main, contactIds: unique([main, ...linked]) };
  });
  const { stored, inserted, insertedIds } = await store.upsertEmails(account, rows, tx, { allNew, recordSeen });
  const created = upserted.filter((c) => c.inserted).map((c) => c.id);
  await store.linkEarlierEmails(created, tx);
  return {
    stored: stored.length,
    emailsCreated: inserted,
    deleted: removed.deleted + swept.deleted,
    contactsCreated: created.length,
    createdReceivedAt: receivedAtOf(stored, new Set(insertedIds)),
  };
}

/** When the mail server received the emails this batch created (the sync-lag histogram). */
function receivedAtOf(rows: EmailRow[], ids: Set<string>): Date[] {
  if (ids.size === 0) return [];
  return rows.filter((r) => ids.has(r.mapped.jmapId) && r.mapped.date !== null).map((r) => r.mapped.date!);
}

/** Changes can name one email twice (created, then updated in a later page): the last copy wins. */
function dedupe(emails: MappedEmail[]): MappedEmail[] {
  return [...new Map(emails.map((m) => [m.jmapId, m])).values()];
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}

/** One entry per address; the first name seen wins. */
function mergePeople(people: Correspondent[]): Correspondent[] {
  const byAddress = new Map<string, Correspondent>();
  for (const person of people) {
    const existing = byAddress.get(person.email);
    if (!existing) byAddress.set(person.email, { ...person });
    else existing.name ??= person.name;
  }
  return [...byAddress.values()];
}
