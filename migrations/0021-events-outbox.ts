import type { QueryInterface } from 'sequelize';

/**
 * Live updates (GET /api/events, docs/adr/0101-events-outbox.md): a short outbox of change events,
 * filled by the database itself so that every writer produces them (an API instance, a
 * `serve --no-api` sync worker, a crm-admin command, psql) without any service knowing.
 *
 * - events: one row per statement and email account (bigserial id = the SSE `id:`), kept about ten
 *   minutes for Last-Event-ID resume and pruned by every serve (src/events/outbox-pruner.ts). No foreign
 *   keys: an event outlives the account it names by design (an account's deletion is itself news).
 * - Statement-level AFTER triggers with transition tables on emails, contacts, email_account_members
 *   and mail_sync_states: one INSERT ... SELECT per statement, grouped by account, never work per row.
 *   A statement touching more than BULK rows of an account (a first sync's page, an account's
 *   deletion) becomes one coarse event with a count and no ids: the app reloads its list.
 * - After an insert, pg_notify on CHANNEL with an empty payload: identical notifications of one
 *   transaction fold into one, so a sync page costs one message, whatever its statement count. The
 *   listeners read `id > last` from the table; the notification only says "look".
 * - Each function pins search_path (public, pg_temp): a trigger runs with the caller's search_path.
 */
// Must match EVENTS_CHANNEL in src/events/outbox-repository.ts and BULK_EVENT_ROWS there.
const CHANNEL = 'crm_events';
const BULK = 50;

/** The payload of a grouped event: the account, the row count, and the ids when there are few. */
const grouped = (alias: string) =>
  `CASE WHEN count(*) > ${BULK}
        THEN jsonb_build_object('emailAccountId', ${alias}.email_account_id, 'count', count(*))
        ELSE jsonb_build_object('emailAccountId', ${alias}.email_account_id, 'count', count(*), 'ids', jsonb_agg(${alias}.id)) END`;

const notify = `
    GET DIAGNOSTICS added = ROW_COUNT;
    IF added > 0 THEN
      PERFORM pg_notify('${CHANNEL}', '');
    END IF;
    RETURN NULL;`;

const fn = (name: string, body: string) => `
  CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
  DECLARE
    added bigint;
  BEGIN
${body}
${notify}
  END $$;`;

/** A read mark or a re-filing under another contact is news; the sync refreshing unchanged rows is not. */
const EMAILS = fn(
  'crm_events_emails',
  `    IF TG_OP = 'INSERT' THEN
      INSERT INTO events (type, email_account_id, payload)
      SELECT 'email.created', n.email_account_id, ${grouped('n')} FROM new_rows n GROUP BY n.email_account_id;
    ELSIF TG_OP = 'UPDATE' THEN
      INSERT INTO events (type, email_account_id, payload)
      SELECT 'email.updated', n.email_account_id, ${grouped('n')}
        FROM new_rows n JOIN old_rows o ON o.id = n.id
       WHERE n.is_read IS DISTINCT FROM o.is_read OR n.contact_id IS DISTINCT FROM o.contact_id
       GROUP BY n.email_account_id;
    ELSE
      INSERT INTO events (type, email_account_id, payload)
      SELECT 'email.deleted', o.email_account_id, ${grouped('o')} FROM old_rows o GROUP BY o.email_account_id;
    END IF;`,
);

/**
 * Columns whose change is not a contact's news: last_email_at moves with every synced page (the
 * email.created event says so already), updated_at follows any change, user_id follows an ownership
 * transfer (a membership.changed event).
 */
const CONTACT_NOISE = `'{last_email_at,updated_at,user_id}'::text[]`;
const CONTACTS = fn(
  'crm_events_contacts',
  `    IF TG_OP = 'INSERT' THEN
      INSERT INTO events (type, email_account_id, payload)
      SELECT 'contact.created', n.email_account_id, ${grouped('n')} FROM new_rows n GROUP BY n.email_account_id;
    ELSIF TG_OP = 'UPDATE' THEN
      INSERT INTO events (type, email_account_id, payload)
      SELECT 'contact.updated', n.email_account_id, ${grouped('n')}
        FROM new_rows n JOIN old_rows o ON o.id = n.id
       WHERE (to_jsonb(n) - ${CONTACT_NOISE}) IS DISTINCT FROM (to_jsonb(o) - ${CONTACT_NOISE})
       GROUP BY n.email_account_id;
    ELSE
      INSERT INTO events (type, email_account_id, payload)
      SELECT 'contact.deleted', o.email_account_id, ${grouped('o')} FROM old_rows o GROUP BY o.email_account_id;
    END IF;`,
);

/**
 * One event per member row (shares change one at a time; an account's deletion removes a handful):
 * it names the member (user_id) and carries their rights now, which the API instances apply to that
 * member's open streams as they read the event, before any later event.
 */
const membership = (alias: string, change: string, removed = false) =>
  `jsonb_build_object('emailAccountId', ${alias}.email_account_id, 'userId', ${alias}.user_id, 'change', '${change}',
                      'role', ${removed ? 'NULL' : `${alias}.role`}, 'canRead', ${removed ? 'false' : `${alias}.can_read`},
                      'canSend', ${removed ? 'false' : `${alias}.can_send`})`;
const MEMBERS = fn(
  'crm_events_members',
  `    IF TG_OP = 'INSERT' THEN
      INSERT INTO events (type, email_account_id, user_id, payload)
      SELECT 'membership.changed', n.email_account_id, n.user_id, ${membership('n', 'added')} FROM new_rows n;
    ELSIF TG_OP = 'UPDATE' THEN
      INSERT INTO events (type, email_account_id, user_id, payload)
      SELECT 'membership.changed', n.email_account_id, n.user_id, ${membership('n', 'updated')}
        FROM new_rows n JOIN old_rows o ON o.email_account_id = n.email_account_id AND o.user_id = n.user_id
       WHERE (n.role, n.can_read, n.can_send) IS DISTINCT FROM (o.role, o.can_read, o.can_send);
    ELSE
      INSERT INTO events (type, email_account_id, user_id, payload)
      SELECT 'membership.changed', o.email_account_id, o.user_id, ${membership('o', 'removed', true)} FROM old_rows o;
    END IF;`,
);

/** Only a change of status (syncing, ok, error, auth_failed): lease renewals and schedule moves are not news. */
const SYNC_STATES = fn(
  'crm_events_sync_states',
  `    INSERT INTO events (type, email_account_id, payload)
    SELECT 'sync.status', n.email_account_id,
           jsonb_build_object('emailAccountId', n.email_account_id, 'status', n.status, 'lastSuccessAt', n.last_success_at)
      FROM new_rows n JOIN old_rows o ON o.email_account_id = n.email_account_id
     WHERE n.status IS DISTINCT FROM o.status;`,
);

const triggers = (table: string, name: string, fnName: string, ops: Array<'INSERT' | 'UPDATE' | 'DELETE'>) =>
  ops
    .map((op) => {
      const refs = { INSERT: 'NEW TABLE AS new_rows', UPDATE: 'OLD TABLE AS old_rows NEW TABLE AS new_rows', DELETE: 'OLD TABLE AS old_rows' }[op];
      return `CREATE TRIGGER ${name}_events_${op.toLowerCase()} AFTER ${op} ON ${table}
      REFERENCING ${refs} FOR EACH STATEMENT EXECUTE FUNCTION ${fnName}();`;
    })
    .join('\n    ');

const ALL = ['INSERT', 'UPDATE', 'DELETE'] as const;

export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE TABLE events (
      id bigserial PRIMARY KEY,
      -- The insert's own time (not the transaction's start): the delivery lag is measured from it.
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      type text NOT NULL,
      -- The account whose streams may see it (every type has one).
      email_account_id uuid,
      -- membership.changed: the member it concerns (only their streams see it).
      user_id uuid,
      payload jsonb NOT NULL
    );
    -- The pruner deletes by age.
    CREATE INDEX events_created_at_idx ON events (created_at);
    ${EMAILS}
    ${CONTACTS}
    ${MEMBERS}
    ${SYNC_STATES}
    ${triggers('emails', 'emails', 'crm_events_emails', [...ALL])}
    ${triggers('contacts', 'contacts', 'crm_events_contacts', [...ALL])}
    ${triggers('email_account_members', 'email_account_members', 'crm_events_members', [...ALL])}
    ${triggers('mail_sync_states', 'mail_sync_states', 'crm_events_sync_states', ['UPDATE'])}
  `);
}

export async function down(qi: QueryInterface): Promise<void> {
  const drops = [
    ...ALL.map((op) => `DROP TRIGGER IF EXISTS emails_events_${op.toLowerCase()} ON emails;`),
    ...ALL.map((op) => `DROP TRIGGER IF EXISTS contacts_events_${op.toLowerCase()} ON contacts;`),
    ...ALL.map((op) => `DROP TRIGGER IF EXISTS email_account_members_events_${op.toLowerCase()} ON email_account_members;`),
    'DROP TRIGGER IF EXISTS mail_sync_states_events_update ON mail_sync_states;',
  ];
  await qi.sequelize.query(`
    ${drops.join('\n    ')}
    DROP FUNCTION IF EXISTS crm_events_emails(), crm_events_contacts(), crm_events_members(), crm_events_sync_states();
    DROP TABLE IF EXISTS events;
  `);
}
