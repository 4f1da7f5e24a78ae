import type { QueryInterface } from 'sequelize';

/**
 * An index on timesheets.file_path (the store key of each timesheet's file, ADR 0155): the orphan sweep
 * asks "which of these 500 keys does a row reference" for every batch of objects it lists in the store
 * (src/storage/stored-file-repository.ts), and without the index each such question scans the table.
 *
 * Cost: CREATE INDEX on timesheets holds a SHARE lock (uploads wait, reads go on) for the time of one
 * pass over the table: a few hundred milliseconds for a hundred thousand rows. Not CONCURRENTLY:
 * migrations run in a transaction.
 */
export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('CREATE INDEX timesheets_file_path_idx ON timesheets (file_path)');
}

export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.query('DROP INDEX IF EXISTS timesheets_file_path_idx');
}
