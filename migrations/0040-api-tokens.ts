import type { QueryInterface } from 'sequelize';

/**
 * Personal API tokens (issue 48, docs/adr/0130-api-tokens-hashed-with-sha256.md): integrations call the
 * API with `Authorization: Bearer crm_pat_...` instead of a staff member's password.
 *
 * No column holds the secret: token_hash is the SHA-256 of the whole token (a 256-bit random secret,
 * so a fast hash is enough), looked up through its unique index. A revoked token's row is deleted
 * (the audit log keeps the trace); a user's deletion takes their tokens with it (ON DELETE CASCADE).
 * The triggers tell every instance's token cache (src/auth/session-cache.ts, the same channel as the
 * sessions of migration 0002) at commit that a token ended or changed; last_used_at, written at most
 * once per token in ten minutes, notifies nobody.
 *
 * A new, empty table: no lock on anything that exists, nothing rewritten.
 */
// Must match AUTH_CHANGE_CHANNEL in src/auth/session-cache.ts.
const AUTH_CHANNEL = 'crm_auth_changed';

export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE api_tokens (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
      token_hash text NOT NULL,
      scopes text[] NOT NULL CHECK (cardinality(scopes) > 0),
      expires_at timestamptz,
      last_used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX api_tokens_token_hash ON api_tokens (token_hash);
    CREATE INDEX api_tokens_user_created ON api_tokens (user_id, created_at);

    CREATE FUNCTION crm_notify_api_token_change() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
      PERFORM pg_notify('${AUTH_CHANNEL}', COALESCE(OLD.user_id, NEW.user_id)::text);
      RETURN NULL;
    END;
    $$;
    CREATE TRIGGER api_tokens_notify_auth_delete AFTER DELETE ON api_tokens
      FOR EACH ROW EXECUTE FUNCTION crm_notify_api_token_change();
    CREATE TRIGGER api_tokens_notify_auth_update AFTER UPDATE ON api_tokens
      FOR EACH ROW
      WHEN (OLD.scopes IS DISTINCT FROM NEW.scopes OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
            OR OLD.user_id IS DISTINCT FROM NEW.user_id OR OLD.token_hash IS DISTINCT FROM NEW.token_hash)
      EXECUTE FUNCTION crm_notify_api_token_change();
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE api_tokens;
    DROP FUNCTION crm_notify_api_token_change();
  `);
}
