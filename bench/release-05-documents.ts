/**
 * Release 0.5's email search document (migrations 0018 and 0030: words and their prefixes; no stems,
 * domains or attachment names) put in place of this release's and back, for the benchmarks that
 * measure what the Slovak documents cost a writer (bench/search-write-cost.ts, bench/sync-bench.ts
 * with BENCH_COMPARE_DOCUMENTS=1). Runs as the schema's owner.
 */
import type pg from 'pg';

export type DocumentRelease = '0.5' | 'now';

/** Release 0.5's insert trigger (migration 0030 with 0018's vector), as migration 0065's down() restores it. */
const RELEASE_05 = (path: string) => `
  CREATE OR REPLACE FUNCTION crm_email_search_insert() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
  BEGIN
    INSERT INTO email_search (email_id, email_account_id, date, document)
    SELECT n.id, n.email_account_id, n.date, strip(crm_email_search_vector(n.subject, n.body, n."from", n."to")) FROM new_rows n;
    RETURN NULL;
  END $$;
  ALTER TABLE email_attachments DISABLE TRIGGER email_attachments_search;`;

/**
 * Switches the documents written from now on (in the client's transaction if one is open): `0.5`, or
 * back to this release's (`current`: the definition read by currentDocuments before the first switch).
 */
export async function useDocuments(client: pg.Client, release: DocumentRelease, current: string): Promise<void> {
  if (release === '0.5') {
    const { rows } = await client.query<{ path: string }>(`SELECT quote_ident(current_schema()) || ', pg_temp' AS path`);
    await client.query(RELEASE_05(rows[0].path));
  } else {
    await client.query(current);
    await client.query('ALTER TABLE email_attachments ENABLE TRIGGER email_attachments_search');
  }
}

/** This release's insert trigger function, as the database holds it. */
export async function currentDocuments(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ def: string }>(`SELECT pg_get_functiondef('crm_email_search_insert'::regproc) AS def`);
  return rows[0].def;
}
