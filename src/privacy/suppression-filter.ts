/**
 * What the sync may store (sync-types.ts MailAdmission), checked on every page before it is written:
 *
 * - nothing exchanged with an erased address up to its erasure: an email any of whose participants
 *   (any address header: From, Sender, Reply-To, To, Cc, Bcc) is suppressed and whose date is not after the erasure (or unknown) is left out.
 *   Mail dated after the erasure is a new relationship and is stored.
 * - with EMAIL_RETENTION_DAYS, nothing older than the retention period (by the email's date; an email
 *   without a date is kept, its age being unknown).
 *
 * Left out means `included = false`, which the writer treats like mail moved to Trash: no row, and a
 * row stored earlier goes. The suppression list is loaded once per run; each page asks the database
 * only for the latest erasure time (one index probe) and reloads the list if an erasure happened
 * meanwhile, so a long first sync that is running while an address is erased stops storing it.
 */
import type { Tx } from '../db/transactions.js';
import type { MappedEmail } from '../sync/email-mapper.js';
import type { MailAdmission, MailGate } from '../sync/sync-types.js';
import type { AddressHasher } from './address-hash.js';
import type { PrivacyHashKeys } from './hash-keys.js';
import type { SuppressionRepository } from './suppression-repository.js';

const DAY_MS = 24 * 3600 * 1000;

export interface SuppressionFilterDeps {
  suppressions: SuppressionRepository;
  hasher: AddressHasher;
  /** Hash keys of erasures made by another installation (a restored archive's, ADR 0161). */
  hashKeys: Pick<PrivacyHashKeys, 'carried'>;
  /** EMAIL_RETENTION_DAYS; undefined keeps mail of any age. */
  retentionDays?: number;
  now?: () => Date;
}

export class SuppressionFilter implements MailAdmission {
  constructor(private readonly deps: SuppressionFilterDeps) {}

  forRun(): MailGate {
    return new RunGate(this.deps);
  }
}

class RunGate implements MailGate {
  private watermark: number | null = null;
  /** Hex hash → erasure time (ms). */
  private erasedAt = new Map<string, number>();
  /** Hash keys carried from other installations, loaded with the list. */
  private carried: Buffer[] = [];
  /** Address → its erasure time, or null when it was never erased (addresses repeat across pages). */
  private readonly seen = new Map<string, number | null>();

  constructor(private readonly deps: SuppressionFilterDeps) {}

  async admit(emails: MappedEmail[], tx?: Tx): Promise<MappedEmail[]> {
    await this.refresh(tx);
    const now = (this.deps.now?.() ?? new Date()).getTime();
    const oldest = this.deps.retentionDays === undefined ? null : now - this.deps.retentionDays * DAY_MS;
    return emails.map((m) => (m.included && !this.allowed(m, oldest) ? { ...m, included: false } : m));
  }

  private allowed(m: MappedEmail, oldest: number | null): boolean {
    const date = m.date?.getTime() ?? null;
    if (oldest !== null && date !== null && date < oldest) return false;
    if (this.erasedAt.size === 0) return true;
    for (const address of m.participants) {
      const erased = this.erasureOf(address);
      if (erased !== null && (date === null || date <= erased)) return false;
    }
    return true;
  }

  private erasureOf(address: string): number | null {
    let erased = this.seen.get(address);
    if (erased === undefined) {
      erased = null;
      for (const hash of this.deps.hasher.candidates(address, this.carried)) {
        const at = this.erasedAt.get(hash.toString('hex'));
        if (at !== undefined) erased = Math.max(erased ?? at, at);
      }
      this.seen.set(address, erased);
    }
    return erased;
  }

  /** Loads the list at the first page, and again only when an erasure happened since. */
  private async refresh(tx?: Tx): Promise<void> {
    const latest = (await this.deps.suppressions.watermark(tx))?.getTime() ?? null;
    if (latest === this.watermark) return;
    const rows = await this.deps.suppressions.all(tx);
    this.erasedAt = new Map(rows.map((r) => [r.address_hash.toString('hex'), r.erased_at.getTime()]));
    this.carried = rows.length > 0 ? await this.deps.hashKeys.carried(tx) : [];
    this.seen.clear();
    this.watermark = latest;
  }
}
