/**
 * One JMAP client per account, kept between runs, so that the session resource is fetched once and
 * not on every check: an idle check is then exactly one HTTP request (Email/changes with the
 * mailboxes, jmap-sync-calls.ts). A client is replaced when the account's address or password
 * changes, dropped after a failed run (the session may be what went wrong), and the least recently
 * used ones are dropped beyond `max`. The client itself re-fetches the session when a response says
 * it changed.
 */
import { createHash } from 'node:crypto';
import type { JmapClient } from '../jmap/index.js';
import type { EmailAccount } from '../models/index.js';

interface Entry {
  fingerprint: string;
  client: JmapClient;
}

export class SyncClients {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly create: (account: EmailAccount) => JmapClient,
    private readonly max = 10_000,
  ) {}

  /** The account's client; a new one when there is none yet or its credentials changed. */
  for(account: EmailAccount): JmapClient {
    const fingerprint = fingerprintOf(account);
    const entry = this.entries.get(account.id);
    // Re-inserted on every use: the Map's order is then least recently used first.
    this.entries.delete(account.id);
    if (entry && entry.fingerprint === fingerprint) {
      this.entries.set(account.id, entry);
      return entry.client;
    }
    const client = this.create(account);
    this.entries.set(account.id, { fingerprint, client });
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    return client;
  }

  forget(accountId: string): void {
    this.entries.delete(accountId);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The credentials as stored (encrypted), hashed: no password, not even encrypted, is kept as a key. */
function fingerprintOf(account: EmailAccount): string {
  return createHash('sha256').update(`${account.email}\0${account.jmapAccountId}\0${account.emailPassword}`).digest('base64url');
}
