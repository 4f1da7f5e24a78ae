import type { QueryInterface } from 'sequelize';

/**
 * Commits that do not queue on the notification lock (issue 50, ADR 0157).
 *
 * A transaction that has called pg_notify takes PostgreSQL's one cluster-wide notification lock when
 * it commits and holds it until its commit is done, so every such commit waits for the one before. The
 * events triggers (migrations 0021, 0033, 0041) notified at every write that added events: all sync
 * batch commits of all workers queued behind each other.
 *
 * Now the triggers call crm_events_wake(), which notifies as before unless the transaction said that
 * its writer wakes the followers itself after the commit (`crm.events_wake = after_commit`,
 * transaction-local, set by the sync's batch checkpoint in the statement that already relaxes its
 * durability: src/sync/sync-repository.ts). That writer then sends one NOTIFY of its own, outside the
 * transaction, once per batch. Every other writer (a service, psql, a migration's backfill, a restore)
 * keeps the notification at its commit: a stream still never misses a committed change, whoever made it.
 * The events rows themselves are unchanged: they commit with the change or not at all.
 *
 * The four trigger functions are rewritten from their current definitions (pg_get_functiondef), the
 * notify call swapped, so the bodies later migrations gave them are kept. Cost: catalogue only.
 */
const FUNCTIONS = ['crm_events_emails', 'crm_events_contacts', 'crm_events_members', 'crm_events_sync_states'];
const NOTIFY = "PERFORM pg_notify('crm_events', '');";
const WAKE = 'PERFORM crm_events_wake();';

async function swap(qi: QueryInterface, from: string, to: string): Promise<void> {
  for (const name of FUNCTIONS) {
    const [rows] = (await qi.sequelize.query(`SELECT pg_get_functiondef('${name}'::regproc) AS def`)) as [Array<{ def: string }>, unknown];
    const def = rows[0].def;
    if (!def.includes(from)) throw new Error(`${name}: "${from}" not found in its definition; migration 0071 cannot rewrite it`);
    await qi.sequelize.query(def.split(from).join(to));
  }
}

export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query(`
    CREATE FUNCTION crm_events_wake() RETURNS void LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
    BEGIN
      -- A writer that notifies after its own commit (one NOTIFY per batch) spares its commit the notification lock.
      IF coalesce(current_setting('crm.events_wake', true), '') <> 'after_commit' THEN
        PERFORM pg_notify('crm_events', '');
      END IF;
    END $$`);
  await swap(qi, NOTIFY, WAKE);
}

export async function down(qi: QueryInterface): Promise<void> {
  await swap(qi, WAKE, NOTIFY);
  await qi.sequelize.query('DROP FUNCTION crm_events_wake()');
}
