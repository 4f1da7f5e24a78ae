import type { QueryInterface } from 'sequelize';

/**
 * The resources of docs/contract.md §2 plus what the service needs: sessions, audit logs, mail sync state,
 * deleted-contact suppression and the throttling table. Written as SQL so the schema is exactly what
 * it says, constraints and indexes included.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      username text NOT NULL CHECK (length(username) BETWEEN 1 AND 64),
      first_name text,
      last_name text,
      password text,
      temp_password text,
      temp_password_expires_at timestamptz,
      changed_password boolean NOT NULL DEFAULT false,
      email_setup_skipped boolean NOT NULL DEFAULT false,
      role text NOT NULL DEFAULT 'member' CHECK (role IN ('admin', 'member')),
      last_login timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    -- Usernames are unique regardless of case: "Jana" and "jana" are one person.
    CREATE UNIQUE INDEX users_username_lower_key ON users (lower(username));
    CREATE INDEX users_role_idx ON users (role);

    CREATE TABLE email_accounts (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      email text NOT NULL,
      email_password text NOT NULL,
      jmap_account_id text NOT NULL,
      is_primary boolean NOT NULL DEFAULT false,
      is_active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX email_accounts_user_email_key ON email_accounts (user_id, lower(email));
    -- At most one primary account per user, enforced by the database rather than by hope.
    CREATE UNIQUE INDEX email_accounts_one_primary ON email_accounts (user_id) WHERE is_primary;

    CREATE TABLE mail_sync_states (
      email_account_id uuid PRIMARY KEY REFERENCES email_accounts(id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'idle' CHECK (status IN ('idle', 'syncing', 'ok', 'error', 'auth_failed')),
      email_state text,
      last_attempt_at timestamptz,
      last_success_at timestamptz,
      last_error text,
      consecutive_failures integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      requested_at timestamptz,
      locked_by text,
      locked_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX mail_sync_states_due_idx ON mail_sync_states (next_attempt_at);

    CREATE TABLE contacts (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      email_account_id uuid NOT NULL REFERENCES email_accounts(id) ON DELETE CASCADE,
      email text NOT NULL,
      name text,
      notes text,
      added_at timestamptz NOT NULL DEFAULT now(),
      last_email_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT contacts_user_account_email_key UNIQUE (user_id, email_account_id, email)
    );
    CREATE INDEX contacts_account_idx ON contacts (email_account_id);
    CREATE INDEX contacts_user_last_email_idx ON contacts (user_id, last_email_at DESC NULLS LAST, id);
    CREATE INDEX contacts_user_name_idx ON contacts (user_id, lower(coalesce(name, email)), id);

    -- A contact the user deleted is remembered here so the sync does not bring it back.
    CREATE TABLE contact_suppressions (
      email_account_id uuid NOT NULL REFERENCES email_accounts(id) ON DELETE CASCADE,
      email text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (email_account_id, email)
    );

    CREATE TABLE emails (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      email_account_id uuid NOT NULL REFERENCES email_accounts(id) ON DELETE CASCADE,
      contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
      jmap_id text NOT NULL,
      message_id text,
      thread_id text,
      in_reply_to text,
      "from" text,
      "to" text,
      subject text,
      body text,
      is_read boolean NOT NULL DEFAULT false,
      -- Set when the CRM changed is_read and the server has not been told yet (write-back retried by the sync).
      read_pending boolean NOT NULL DEFAULT false,
      date timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    -- docs/contract.md §2: jmap_id and message_id are unique per email account (one message in two staff accounts is two rows).
    CREATE UNIQUE INDEX emails_account_jmap_id_key ON emails (email_account_id, jmap_id);
    CREATE UNIQUE INDEX emails_account_message_id_key ON emails (email_account_id, message_id) WHERE message_id IS NOT NULL;
    CREATE INDEX emails_user_date_idx ON emails (user_id, date DESC, id);
    CREATE INDEX emails_contact_date_idx ON emails (contact_id, date DESC, id);
    CREATE INDEX emails_thread_idx ON emails (email_account_id, thread_id);
    CREATE INDEX emails_read_pending_idx ON emails (email_account_id) WHERE read_pending;

    -- An email appears under every contact that took part in it, not only its main correspondent.
    CREATE TABLE email_contacts (
      email_id uuid NOT NULL REFERENCES emails(id) ON DELETE CASCADE,
      contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
      PRIMARY KEY (contact_id, email_id)
    );
    CREATE INDEX email_contacts_email_idx ON email_contacts (email_id);

    CREATE TABLE timesheets (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      file_name text NOT NULL,
      file_path text NOT NULL,
      file_type text NOT NULL,
      file_size bigint NOT NULL CHECK (file_size >= 0),
      year integer NOT NULL CHECK (year BETWEEN 2000 AND 2100),
      month integer NOT NULL CHECK (month BETWEEN 1 AND 12),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX timesheets_user_period_idx ON timesheets (user_id, year DESC, month DESC, created_at DESC);
    CREATE INDEX timesheets_period_idx ON timesheets (year DESC, month DESC, created_at DESC);

    -- One row per login session (a refresh-token family). Only hashes of token ids are stored.
    CREATE TABLE sessions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      current_jti_hash text NOT NULL,
      previous_jti_hash text,
      rotated_at timestamptz,
      remember_me boolean NOT NULL DEFAULT false,
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz,
      revoked_reason text,
      ip text,
      user_agent text,
      last_used_at timestamptz NOT NULL DEFAULT now(),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX sessions_user_idx ON sessions (user_id) WHERE revoked_at IS NULL;

    CREATE TABLE audit_logs (
      id bigserial PRIMARY KEY,
      action text NOT NULL,
      user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      username text,
      actor text,
      success boolean NOT NULL DEFAULT true,
      ip text,
      user_agent text,
      details jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX audit_logs_created_idx ON audit_logs (created_at DESC, id DESC);
    CREATE INDEX audit_logs_user_idx ON audit_logs (user_id, created_at DESC);
    CREATE INDEX audit_logs_action_idx ON audit_logs (action, created_at DESC);

    -- Shared throttling counters (rate-limiter-flexible's layout), so limits hold across instances.
    CREATE TABLE rate_limits (
      key varchar(255) PRIMARY KEY,
      points integer NOT NULL DEFAULT 0,
      expire bigint
    );
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    DROP TABLE IF EXISTS rate_limits, audit_logs, sessions, timesheets, email_contacts, emails,
      contact_suppressions, contacts, mail_sync_states, email_accounts, users CASCADE;
  `);
}
