import type { QueryInterface } from 'sequelize';

/**
 * Erasures that stick (`crm-admin privacy erase`, POST /api/admin/privacy/erase): one row per erased
 * address, keyed by a keyed hash of it (HMAC-SHA256, src/privacy/address-hash.ts), never the address
 * itself, with the time of the (latest) erasure. The sync's writer leaves out every email that the
 * address took part in and that is not newer than erased_at (src/privacy/suppression-filter.ts), so
 * neither a later sync nor the first sync of a re-linked mailbox stores the erased mail again; mail
 * after the erasure is a new relationship and is stored.
 *
 * The index on erased_at answers the sync's per-page "did anything get erased since I loaded the
 * list" probe from the index alone.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE privacy_suppressions (
      address_hash bytea PRIMARY KEY CHECK (length(address_hash) = 32),
      erased_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX privacy_suppressions_erased_idx ON privacy_suppressions (erased_at);
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('DROP TABLE IF EXISTS privacy_suppressions');
}
