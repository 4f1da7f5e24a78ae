import type { QueryInterface } from 'sequelize';

/**
 * The keys of the erasures' hashes that this installation cannot derive from its own
 * CRM_ENCRYPTION_KEY (issue 52, finding 3; docs/adr/0161-erasures-carry-their-hash-keys.md).
 *
 * privacy_suppressions holds HMACs of erased addresses under a key derived from the encryption key of
 * the installation that erased them. A restore into an installation with another encryption key (the
 * documented path: a shared BACKUP_SIGNING_KEY and --ignore-key-mismatch) used to lose that key, and
 * with it every erasure: a re-linked mailbox's sync stored the person's mail again. The archive now
 * carries the hash keys, wrapped under the signing key, and the restore keeps each one it cannot derive
 * here in this table, sealed with this installation's key (src/crypto/secret-box.ts, bound to its id).
 *
 * id: the key's fingerprint (an HMAC of a constant under it: names it without revealing it).
 * A new, empty table: no lock on anything that exists.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE privacy_hash_keys (
      id text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{16}$'),
      sealed text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('DROP TABLE IF EXISTS privacy_hash_keys');
}
