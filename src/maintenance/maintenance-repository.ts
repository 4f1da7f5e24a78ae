import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';

/** Housekeeping that belongs to no area: which instance does it. */
export class MaintenanceRepository {
  constructor(private readonly sql: Sql) {}

  /** Takes the advisory lock `key` until the transaction ends, if nobody holds it; answers whether it did. */
  async tryLock(key: number, tx: Tx): Promise<boolean> {
    const row = await this.sql.one<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($key::bigint) AS locked', { key }, tx);
    return row?.locked === true;
  }
}
