/**
 * Applies one batch of server facts (emails as they are now, ids destroyed) to the database in ONE
 * transaction together with the run's checkpoint: a crash before the commit replays the batch, a
 * crash after it resumes from the checkpoint, and nothing is lost or doubled either way.
 */
import type { Sequelize } from 'sequelize';
import type { AccountLease, CheckpointFields } from './account-lease.js';
import { ContactUpserter, type AccountRef } from './contact-upserter.js';
import type { Correspondent, MappedEmail } from './email-mapper.js';
import { EmailWriter, type EmailRow } from './email-writer.js';
import { execute } from './sql.js';

export interface BatchInput {
  emails: MappedEmail[];
  /** JMAP ids gone from the server. */
  destroyed?: string[];
  checkpoint: CheckpointFields;
  /** A full sync's final batch: remove rows of earlier generations that this sync did not see. */
  sweepGeneration?: number;
}

export interface BatchResult {
  /** Rows inserted or refreshed. */
  stored: number;
  /** Of those, new rows. */
  emailsCreated: number;
  deleted: number;
  contactsCreated: number;
}

export class BatchWriter {
  private readonly account: AccountRef;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly lease: AccountLease,
  ) {
    this.account = { id: lease.account.id, userId: lease.account.userId };
  }

  apply(input: BatchInput): Promise<BatchResult> {
    return this.sequelize.transaction(async (transaction) => {
      // Everything here can be fetched again, and a batch commits together with its checkpoint: if
      // PostgreSQL crashes before the WAL reaches disk, both are lost and the batch is simply redone.
      // So the batch need not wait for the disk (the last synchronous commit flushes it anyway).
      await execute(this.sequelize, 'SET LOCAL synchronous_commit = off', [], transaction);
      // Then: a run that lost its lease must not write anything.
      await this.lease.checkpoint(transaction, input.checkpoint);
      const contacts = new ContactUpserter(this.sequelize, this.account, transaction);
      const writer = new EmailWriter(this.sequelize, this.account, transaction);

      const latest = dedupe(input.emails);
      const addresses = unique(latest.filter((m) => m.included).flatMap((m) => [...m.correspondents.map((c) => c.email), ...m.participants]));
      const known = await contacts.lookup(addresses);
      const keep: Array<{ mapped: MappedEmail; people: Correspondent[] }> = [];
      const drop = new Set(input.destroyed ?? []);
      for (const mapped of latest) {
        const people = mapped.included ? mapped.correspondents.filter((c) => !known.get(c.email)?.suppressed) : [];
        // Nobody left to file it under (bulk, robots, deleted contacts) or out of reach (Trash): no row.
        if (people.length === 0) drop.add(mapped.jmapId);
        else keep.push({ mapped, people });
      }

      // Deletes first: they may free a Message-ID that an upsert below needs.
      const removed = await writer.deleteByJmapIds([...drop]);
      const swept = input.sweepGeneration === undefined ? { deleted: 0, contactIds: [] } : await writer.deleteOlderGenerations(input.sweepGeneration);
      await contacts.recomputeLastEmailAt(unique([...removed.contactIds, ...swept.contactIds]));

      // Only people who are not contacts yet, or whose contact lacks a name the mail has, need a write.
      const needed = mergePeople(keep.flatMap((k) => k.people)).filter((p) => {
        const k = known.get(p.email);
        return !k?.contactId || (!k.hasName && p.name !== null);
      });
      const upserted = await contacts.upsert(needed);
      const contactIdOf = new Map<string, string>();
      for (const [address, k] of known) if (k.contactId) contactIdOf.set(address, k.contactId);
      for (const c of upserted) contactIdOf.set(c.email, c.id);

      const rows: EmailRow[] = keep.map(({ mapped, people }) => {
        const main = contactIdOf.get(people[0]!.email)!;
        const linked = [...people.map((p) => p.email), ...mapped.participants].map((a) => contactIdOf.get(a)).filter((id): id is string => !!id);
        return { mapped, contactId: main, contactIds: unique([main, ...linked]) };
      });
      const { stored, inserted } = await writer.upsert(rows, this.lease.generation);
      const created = upserted.filter((c) => c.inserted).map((c) => c.id);
      const newest = newestPerContact(stored);
      for (const [id, date] of await contacts.linkEarlierEmails(created)) keepNewest(newest, id, date);
      await contacts.advanceLastEmailAt(newest);
      return {
        stored: stored.length,
        emailsCreated: inserted,
        deleted: removed.deleted + swept.deleted,
        contactsCreated: created.length,
      };
    });
  }
}

function newestPerContact(rows: EmailRow[]): Map<string, Date> {
  const newest = new Map<string, Date>();
  for (const row of rows) {
    if (!row.mapped.date) continue;
    for (const id of row.contactIds) keepNewest(newest, id, row.mapped.date);
  }
  return newest;
}

function keepNewest(newest: Map<string, Date>, id: string, date: Date): void {
  const current = newest.get(id);
  if (!current || current < date) newest.set(id, date);
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
