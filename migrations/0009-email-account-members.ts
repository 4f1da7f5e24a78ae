import type { QueryInterface } from 'sequelize';

/**
 * Email-account sharing (docs/adr/0028-email-account-sharing.md): who may use an email account, with which
 * role (owner / editor / viewer) and rights (can_read, can_send). Every account has exactly one owner
 * row, and it is the user in email_accounts.user_id:
 *
 * - existing accounts get their owner row here; new ones get it from a trigger, whoever inserts the
 *   account (the service, crm-admin, a seed, psql);
 * - at most one owner per account (partial unique index), and at commit the owner row must match
 *   email_accounts.user_id (deferred constraint triggers), so an ownership transfer is all or nothing;
 * - contacts.user_id and emails.user_id keep naming the owner but are no longer the access criterion:
 *   lists are scoped by account. Their indexes therefore lead with email_account_id now; the
 *   user_id-led twins of 0001/0006 are replaced (same count of indexes for the sync to maintain).
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE email_account_members (
      email_account_id uuid NOT NULL REFERENCES email_accounts(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
      can_read boolean NOT NULL DEFAULT true,
      can_send boolean NOT NULL DEFAULT false,
      -- Who granted the share (null for owner rows and once that user is deleted).
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (email_account_id, user_id),
      -- The owner has every right; a viewer only reads.
      CONSTRAINT email_account_members_owner_rights CHECK (role <> 'owner' OR (can_read AND can_send)),
      CONSTRAINT email_account_members_viewer_rights CHECK (role <> 'viewer' OR NOT can_send)
    );
    CREATE UNIQUE INDEX email_account_members_one_owner ON email_account_members (email_account_id) WHERE role = 'owner';
    -- "The accounts I may use": one index range per caller, answered from the index alone.
    CREATE INDEX email_account_members_user_idx ON email_account_members (user_id, email_account_id) INCLUDE (role, can_read, can_send);
    CREATE INDEX email_account_members_created_by_idx ON email_account_members (created_by) WHERE created_by IS NOT NULL;

    INSERT INTO email_account_members (email_account_id, user_id, role, can_read, can_send, created_at)
    SELECT id, user_id, 'owner', true, true, created_at FROM email_accounts;

    CREATE FUNCTION crm_email_account_owner_row() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO email_account_members (email_account_id, user_id, role, can_read, can_send)
      VALUES (NEW.id, NEW.user_id, 'owner', true, true);
      RETURN NULL;
    END $$;
    CREATE TRIGGER email_accounts_owner_row AFTER INSERT ON email_accounts
      FOR EACH ROW EXECUTE FUNCTION crm_email_account_owner_row();

    CREATE FUNCTION crm_check_email_account_owner() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      account uuid;
    BEGIN
      IF TG_TABLE_NAME = 'email_accounts' THEN
        account := NEW.id;
      ELSE
        account := OLD.email_account_id;
      END IF;
      IF EXISTS (SELECT 1 FROM email_accounts a
                  WHERE a.id = account
                    AND NOT EXISTS (SELECT 1 FROM email_account_members m
                                     WHERE m.email_account_id = a.id AND m.user_id = a.user_id AND m.role = 'owner')) THEN
        RAISE EXCEPTION 'email account % has no owner row for its user_id', account USING ERRCODE = 'integrity_constraint_violation';
      END IF;
      RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER email_account_members_owner_check AFTER UPDATE OR DELETE ON email_account_members
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION crm_check_email_account_owner();
    CREATE CONSTRAINT TRIGGER email_accounts_owner_check AFTER UPDATE OF user_id ON email_accounts
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION crm_check_email_account_owner();

    CREATE INDEX contacts_account_last_email_idx ON contacts (email_account_id, last_email_at DESC NULLS LAST, id);
    CREATE INDEX contacts_account_name_idx ON contacts (email_account_id, lower(coalesce(name, email)), id);
    CREATE INDEX emails_account_date_idx ON emails (email_account_id, date DESC, id);
    CREATE INDEX emails_account_unread_date_idx ON emails (email_account_id, date DESC, id) WHERE NOT is_read;
    DROP INDEX contacts_user_last_email_idx, contacts_user_name_idx, contacts_account_idx, emails_user_date_idx, emails_user_unread_date_idx;
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE INDEX IF NOT EXISTS contacts_account_idx ON contacts (email_account_id);
    CREATE INDEX IF NOT EXISTS contacts_user_last_email_idx ON contacts (user_id, last_email_at DESC NULLS LAST, id);
    CREATE INDEX IF NOT EXISTS contacts_user_name_idx ON contacts (user_id, lower(coalesce(name, email)), id);
    CREATE INDEX IF NOT EXISTS emails_user_date_idx ON emails (user_id, date DESC, id);
    CREATE INDEX IF NOT EXISTS emails_user_unread_date_idx ON emails (user_id, date DESC, id) WHERE NOT is_read;
    DROP INDEX IF EXISTS contacts_account_last_email_idx, contacts_account_name_idx, emails_account_date_idx, emails_account_unread_date_idx;
    DROP TRIGGER IF EXISTS email_accounts_owner_check ON email_accounts;
    DROP TRIGGER IF EXISTS email_accounts_owner_row ON email_accounts;
    DROP TABLE IF EXISTS email_account_members;
    DROP FUNCTION IF EXISTS crm_check_email_account_owner();
    DROP FUNCTION IF EXISTS crm_email_account_owner_row();
  `);
}
