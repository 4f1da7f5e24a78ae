import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';

export interface SealedHashKey {
  id: string;
  sealed: string;
}

/** privacy_hash_keys (migration 0076): hash keys of erasures made elsewhere, sealed with this installation's key. */
export class HashKeyRepository {
  constructor(private readonly sql: Sql) {}

  /** A handful of rows at most (one per installation an archive came from). */
  list(tx?: Tx): Promise<SealedHashKey[]> {
    return this.sql.select<SealedHashKey>('SELECT id, sealed FROM privacy_hash_keys ORDER BY created_at, id', {}, tx);
  }
}
