import pg from 'pg';

/** One statement on a connection of its own as the role of `url` (tests of database roles and privileges). */
export async function sqlAs<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** The SQLSTATE a statement fails with as the role of `url` (42501: not allowed), or 'ok'. */
export async function sqlState(url: string, sql: string): Promise<string> {
  try {
    await sqlAs(url, sql);
    return 'ok';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}
