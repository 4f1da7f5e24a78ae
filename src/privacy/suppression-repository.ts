import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';

export interface SuppressionRow {
  address_hash: Buffer;
  erased_at: Date;
}

/** privacy_suppressions (migration 0022): erased addresses, by keyed hash only. */
export class SuppressionRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Records (or renews) the erasure of an address now, committed on its own before any row is
   * deleted: a sync that writes after this sees it. Answers the erasure time the database gave it.
   */
  async suppress(hash: Buffer, tx?: Tx): Promise<Date> {
    const row = await this.sql.one<{ erased_at: Date }>(
      `INSERT INTO privacy_suppressions (address_hash, erased_at) VALUES ($hash, now())
       ON CONFLICT (address_hash) DO UPDATE SET erased_at = GREATEST(privacy_suppressions.erased_at, EXCLUDED.erased_at)
       RETURNING erased_at`,
      { hash },
      tx,
    );
    return row!.erased_at;
  }

  /** The latest erasure time, or null when nothing was ever erased: one probe of the index, per sync page. */
  async watermark(tx?: Tx): Promise<Date | null> {
    const row = await this.sql.one<{ latest: Date | null }>('SELECT max(erased_at) AS latest FROM privacy_suppressions', {}, tx);
    return row?.latest ?? null;
  }

  /** Every suppression (32 bytes and a time each: a few thousand erasures are a few hundred kilobytes). */
  all(tx?: Tx): Promise<SuppressionRow[]> {
    return this.sql.select<SuppressionRow>('SELECT address_hash, erased_at FROM privacy_suppressions', {}, tx);
  }
}
