import type { QueryInterface } from 'sequelize';

/**
 * Every instance keeps recently checked sessions in memory (src/auth/session-cache.ts) so an
 * authenticated request needs no query. These triggers tell every instance, at commit, which user's
 * sessions or record changed: a logout, revocation, role change or deletion made anywhere (another
 * instance, crm-admin, plain SQL) reaches all of them through LISTEN/NOTIFY within milliseconds.
 * pg_notify is transactional (nothing is sent for a rolled-back change) and folds identical
 * payloads of one transaction into one message.
 */
// Must match AUTH_CHANGE_CHANNEL in src/auth/session-cache.ts.
const AUTH_CHANNEL = 'crm_auth_changed';

export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE FUNCTION crm_notify_auth_change() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      changed_user uuid;
    BEGIN
      IF TG_TABLE_NAME = 'users' THEN
        changed_user := COALESCE(NEW.id, OLD.id);
      ELSE
        changed_user := COALESCE(NEW.user_id, OLD.user_id);
      END IF;
      PERFORM pg_notify('${AUTH_CHANNEL}', changed_user::text);
      RETURN NULL;
    END;
    $$;

    -- Any change of a user record: role, names, password, last login (the cached copy is what /me shows).
    CREATE TRIGGER users_notify_auth_change AFTER UPDATE OR DELETE ON users
      FOR EACH ROW EXECUTE FUNCTION crm_notify_auth_change();
    -- Sessions: only what decides whether a session still stands (rotation and last use do not).
    CREATE TRIGGER sessions_notify_auth_update AFTER UPDATE ON sessions
      FOR EACH ROW
      WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at OR OLD.user_id IS DISTINCT FROM NEW.user_id)
      EXECUTE FUNCTION crm_notify_auth_change();
    CREATE TRIGGER sessions_notify_auth_delete AFTER DELETE ON sessions
      FOR EACH ROW EXECUTE FUNCTION crm_notify_auth_change();
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TRIGGER IF EXISTS sessions_notify_auth_delete ON sessions;
    DROP TRIGGER IF EXISTS sessions_notify_auth_update ON sessions;
    DROP TRIGGER IF EXISTS users_notify_auth_change ON users;
    DROP FUNCTION IF EXISTS crm_notify_auth_change();
  `);
}
