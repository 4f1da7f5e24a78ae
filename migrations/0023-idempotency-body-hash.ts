import type { QueryInterface } from 'sequelize';

/**
 * An Idempotency-Key answers its first result again only to the same request (issue 26): body_hash
 * is a SHA-256 of the request's content (text fields, and each attachment's name and SHA-256), so the
 * key reused with another body is a 409 instead of a replay of the first answer. Null for rows of
 * requests made before this migration (their retries are still answered as before).
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('ALTER TABLE send_idempotency_keys ADD COLUMN body_hash text');
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('ALTER TABLE send_idempotency_keys DROP COLUMN body_hash');
}
