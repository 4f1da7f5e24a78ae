import type { QueryInterface, Transaction } from 'sequelize';

/**
 * Search that speaks Slovak (issue 49, docs/adr/0150-slovak-word-forms.md, 0151-search-document-v2.md).
 *
 * The stored search document of each email (email_search.document, migration 0030) becomes:
 * - the folded words of subject, sender, recipients (To and Cc) and body WITH their positions (a
 *   phrase in quotes is matched with the <-> operator, which needs them; 0030 stripped them);
 * - the stem of every word whose stem differs from the word (crm_sk_stem, a light Slovak stemmer:
 *   case endings off, a mobile vowel of the last syllable out), without positions: "faktúry" and
 *   "faktúrou" both add "faktur", which the query of "faktúra" asks for (crm_search_tsquery);
 * - the domains of the addresses (jan@mail.tatralogistika.sk adds mail.tatralogistika.sk and
 *   tatralogistika.sk, which the prefix "tatralogistika" finds);
 * - the attachments' file names, as the parser reads them and split at every mark that is not a
 *   letter or digit ("faktúra-2026-118.pdf" adds faktura, 2026, 118, pdf), with their stems.
 *
 * Kept by the same triggers on emails (every writer keeps it), plus a statement-level trigger on
 * email_attachments: attachments are written after their email (foreign key), so their names are
 * added to the email's document then; an email whose text changes gets its document computed again
 * with the names of its attachments.
 *
 * Existing documents are rebuilt here, in the migration's transaction (as 0030 built them): the
 * table is emptied, filled again with the new documents and its indexes built after the rows are in.
 * About 10 minutes per million emails on a loaded 2-core machine (CHANGELOG, upgrade note).
 *
 * The query side: crm_search_tsquery(word) now asks for the word, the word as a prefix, and its stem
 * (if the stem differs); a number the parser reads as signed ("-118" in "faktúra-2026-118") also
 * unsigned. crm_search_phrase(text) is the phrase, exact words in their order.
 */
/** Exported for test/search/word-forms.test.ts, which compares migration 0081's PL/pgSQL stemmer with it. */
export const STEMMER = (path: string) => String.raw`
  -- The case ending of a folded Slovak word (lower case, no diacritics), the longest that leaves a
  -- stem of 3 letters; words shorter than 4 letters and anything but letters stay as they are.
  -- An expression of cheap string functions (a regular expression with a lazy quantifier took ~400 µs
  -- per word, docs/adr/0150). Its search_path is pinned like every function's (test/db/schema.test.ts),
  -- which keeps the planner from inlining it: a function call per word.
  CREATE FUNCTION crm_sk_strip(w text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = ${path} AS $$
    SELECT CASE
      WHEN length(w) < 4 OR w !~ '^[a-z]+$' THEN w
      WHEN length(w) >= 7 AND right(w, 4) IN ('iami', 'iach', 'ovia') THEN left(w, -4)
      WHEN length(w) >= 6 AND right(w, 3) IN ('ami', 'ach', 'iam', 'ich', 'ych', 'ymi', 'imi', 'eho', 'emu', 'ovi', 'och', 'iou') THEN left(w, -3)
      WHEN length(w) >= 5 AND right(w, 2) IN ('ou', 'om', 'ov', 'ej', 'ym', 'im', 'am', 'mi', 'ia', 'ie', 'iu', 'ii') THEN left(w, -2)
      WHEN right(w, 1) IN ('a', 'e', 'i', 'o', 'u', 'y') THEN left(w, -1)
      ELSE w END $$;
  -- The stem: the ending off, then a mobile vowel between the last two consonants out (paliet and
  -- palet -> palt, objednávok and objednávk -> objednavk, týždeň and týždň -> tyzdn).
  CREATE FUNCTION crm_sk_stem(word text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = ${path} AS $$
    SELECT regexp_replace(crm_sk_strip(word), '^([a-z]+[^aeiouy])(ie|e|o)([^aeiouy])$', '\1\3') $$;
`;

/**
 * The document's parts, in one PL/pgSQL function (one call per email, its queries' plans cached).
 * Exported for test/search/word-forms.test.ts, which compares migration 0082's with it.
 */
export const DOCUMENT = (path: string) => String.raw`
  CREATE FUNCTION crm_search_names(names text) RETURNS tsvector LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = ${path} AS $$
  DECLARE
    folded text := crm_fold(names);
    v tsvector;
  BEGIN
    IF folded IS NULL OR folded = '' THEN RETURN ''::tsvector; END IF;
    v := to_tsvector('simple'::regconfig, folded) || to_tsvector('simple'::regconfig, regexp_replace(folded, '[^[:alnum:]]+', ' ', 'g'));
    RETURN strip(v || array_to_tsvector(ARRAY(SELECT DISTINCT s FROM (SELECT l, crm_sk_stem(l) AS s FROM unnest(tsvector_to_array(v)) l) x WHERE s <> l)));
  END $$;

  CREATE FUNCTION crm_email_search_document(subject text, body text, sender text, recipients text, addresses jsonb, names text) RETURNS tsvector
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = ${path} AS $$
  DECLARE
    cc text := CASE WHEN jsonb_typeof(addresses->'cc') = 'array'
                    THEN (SELECT string_agg(a->>'email', ' ') FROM jsonb_array_elements(addresses->'cc') a) END;
    words tsvector := to_tsvector('simple'::regconfig, crm_fold(concat_ws(' ', subject, sender, recipients, cc, left(body, 100000))));
    stems tsvector := array_to_tsvector(ARRAY(SELECT s FROM (SELECT l, crm_sk_stem(l) AS s FROM unnest(tsvector_to_array(words)) l) x WHERE s <> l));
    hosts tsvector := array_to_tsvector(ARRAY(
      SELECT DISTINCT array_to_string(labels[i:], '.')
        FROM (SELECT string_to_array(m[1], '.') AS labels
                FROM regexp_matches(crm_fold(concat_ws(' ', sender, recipients, cc)), '@([a-z0-9-]+(?:\.[a-z0-9-]+)+)', 'g') m) h
        CROSS JOIN LATERAL generate_series(1, cardinality(labels) - 1) i));
  BEGIN
    RETURN words || stems || hosts || crm_search_names(names);
  END $$;
`;

/** The attachments' names of an email, in their order (the document's last part). */
const NAMES_OF = (emailId: string) => `(SELECT string_agg(a.name, ' ' ORDER BY a.position) FROM email_attachments a WHERE a.email_id = ${emailId})`;
const DOC = (row: string, names: string) => `crm_email_search_document(${row}.subject, ${row}.body, ${row}."from", ${row}."to", ${row}.addresses, ${names})`;

const TRIGGERS = (path: string) => `
  CREATE OR REPLACE FUNCTION crm_email_search_insert() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
  BEGIN
    -- A new email has no attachments yet (they reference it): its names come with crm_email_attachments_search().
    INSERT INTO email_search (email_id, email_account_id, date, document)
    SELECT n.id, n.email_account_id, n.date, ${DOC('n', 'NULL')} FROM new_rows n;
    RETURN NULL;
  END $$;

  CREATE OR REPLACE FUNCTION crm_email_search_update() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
  BEGIN
    UPDATE email_search SET email_account_id = NEW.email_account_id, date = NEW.date,
           document = CASE WHEN (NEW.subject, NEW.body, NEW."from", NEW."to", NEW.addresses) IS NOT DISTINCT FROM (OLD.subject, OLD.body, OLD."from", OLD."to", OLD.addresses)
                           THEN document ELSE ${DOC('NEW', NAMES_OF('NEW.id'))} END
     WHERE email_id = NEW.id;
    RETURN NULL;
  END $$;
  DROP TRIGGER emails_search_update ON emails;
  CREATE TRIGGER emails_search_update AFTER UPDATE OF subject, body, "from", "to", addresses, date, email_account_id ON emails
    FOR EACH ROW
    WHEN ((OLD.subject, OLD.body, OLD."from", OLD."to", OLD.addresses, OLD.date, OLD.email_account_id)
          IS DISTINCT FROM (NEW.subject, NEW.body, NEW."from", NEW."to", NEW.addresses, NEW.date, NEW.email_account_id))
    EXECUTE FUNCTION crm_email_search_update();

  CREATE FUNCTION crm_email_attachments_search() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
  BEGIN
    UPDATE email_search s SET document = s.document || crm_search_names(n.names)
      FROM (SELECT email_id, string_agg(name, ' ' ORDER BY position) AS names FROM new_rows WHERE name IS NOT NULL GROUP BY email_id) n
     WHERE s.email_id = n.email_id;
    RETURN NULL;
  END $$;
  CREATE TRIGGER email_attachments_search AFTER INSERT ON email_attachments
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION crm_email_attachments_search();
`;

const QUERY = (path: string) => String.raw`
  -- Each word of the search (folded, parsed as the documents are): itself, as a prefix, and its stem.
  CREATE OR REPLACE FUNCTION crm_search_tsquery(search text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = ${path} AS $$
      SELECT to_tsquery('simple'::regconfig, (
        SELECT string_agg(format('(%1$s | %1$s:*%2$s%3$s)', crm_tsquery_quote(t.lexeme),
                                 CASE WHEN crm_sk_stem(t.lexeme) <> t.lexeme THEN ' | ' || crm_tsquery_quote(crm_sk_stem(t.lexeme)) ELSE '' END,
                                 CASE WHEN t.lexeme ~ '^-[0-9]' THEN format(' | %1$s | %1$s:*', crm_tsquery_quote(ltrim(t.lexeme, '-'))) ELSE '' END), ' & ')
          FROM unnest(to_tsvector('simple'::regconfig, crm_fold(search))) t))
    $$;
  -- An exact phrase: its words (folded), in this order, next to each other; no prefixes, no stems.
  CREATE FUNCTION crm_search_phrase(phrase text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = ${path} AS $$
      SELECT nullif(phraseto_tsquery('simple'::regconfig, crm_fold(phrase)), ''::tsquery)
    $$;
`;

const QUOTE = (path: string) => String.raw`
  CREATE FUNCTION crm_tsquery_quote(lexeme text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = ${path} AS $$
    SELECT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''' $$;
`;

export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    const path = `${quoteIdent(await scalar(qi, 'SELECT current_schema() AS value', transaction))}, pg_temp`;
    await qi.sequelize.query(
      `
      SET LOCAL statement_timeout = 0;
      SET LOCAL maintenance_work_mem = '256MB';
      ${STEMMER(path)}
      ${QUOTE(path)}
      ${DOCUMENT(path)}
      ${TRIGGERS(path)}
      ${QUERY(path)}
      -- The rebuild: every document again, the indexes built after the rows are in.
      ALTER TABLE email_search DROP CONSTRAINT email_search_email_id_fkey, DROP CONSTRAINT email_search_pkey;
      DROP INDEX email_search_account_date_idx, email_search_document_idx;
      TRUNCATE email_search;
      INSERT INTO email_search (email_id, email_account_id, date, document)
      SELECT e.id, e.email_account_id, e.date, ${DOC('e', NAMES_OF('e.id'))} FROM emails e;
      ALTER TABLE email_search ADD PRIMARY KEY (email_id),
        ADD CONSTRAINT email_search_email_id_fkey FOREIGN KEY (email_id) REFERENCES emails (id) ON DELETE CASCADE;
      CREATE INDEX email_search_account_date_idx ON email_search (email_account_id, date DESC, email_id);
      CREATE INDEX email_search_document_idx ON email_search USING gin (document);
      `,
      { transaction },
    );
    await qi.sequelize.query('ANALYZE email_search', { transaction });
  });
}

/** Release 0.5's document and query (migrations 0018, 0030), rebuilt the same way. */
export async function down(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    const path = `${quoteIdent(await scalar(qi, 'SELECT current_schema() AS value', transaction))}, pg_temp`;
    const old = (row: string) => `strip(crm_email_search_vector(${row}.subject, ${row}.body, ${row}."from", ${row}."to"))`;
    await qi.sequelize.query(
      String.raw`
      SET LOCAL statement_timeout = 0;
      SET LOCAL maintenance_work_mem = '256MB';
      DROP TRIGGER email_attachments_search ON email_attachments;
      DROP FUNCTION crm_email_attachments_search();
      CREATE OR REPLACE FUNCTION crm_email_search_insert() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
      BEGIN
        INSERT INTO email_search (email_id, email_account_id, date, document)
        SELECT n.id, n.email_account_id, n.date, ${old('n')} FROM new_rows n;
        RETURN NULL;
      END $$;
      CREATE OR REPLACE FUNCTION crm_email_search_update() RETURNS trigger LANGUAGE plpgsql SET search_path = ${path} AS $$
      BEGIN
        UPDATE email_search SET email_account_id = NEW.email_account_id, date = NEW.date,
               document = CASE WHEN (NEW.subject, NEW.body, NEW."from", NEW."to") IS NOT DISTINCT FROM (OLD.subject, OLD.body, OLD."from", OLD."to")
                               THEN document ELSE ${old('NEW')} END
         WHERE email_id = NEW.id;
        RETURN NULL;
      END $$;
      DROP TRIGGER emails_search_update ON emails;
      CREATE TRIGGER emails_search_update AFTER UPDATE OF subject, body, "from", "to", date, email_account_id ON emails
        FOR EACH ROW
        WHEN ((OLD.subject, OLD.body, OLD."from", OLD."to", OLD.date, OLD.email_account_id)
              IS DISTINCT FROM (NEW.subject, NEW.body, NEW."from", NEW."to", NEW.date, NEW.email_account_id))
        EXECUTE FUNCTION crm_email_search_update();
      CREATE OR REPLACE FUNCTION crm_search_tsquery(search text) RETURNS tsquery
        LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = ${path} AS $$
          SELECT to_tsquery('simple'::regconfig, (
            SELECT string_agg(format('(%1$s | %1$s:*)', '''' || replace(replace(t.lexeme, '\', '\\'), '''', '''''') || ''''), ' & ')
              FROM unnest(to_tsvector('simple'::regconfig, crm_fold(search))) t))
        $$;
      DROP FUNCTION crm_search_phrase(text);
      DROP FUNCTION crm_email_search_document(text, text, text, text, jsonb, text);
      DROP FUNCTION crm_search_names(text);
      DROP FUNCTION crm_tsquery_quote(text);
      DROP FUNCTION crm_sk_stem(text);
      DROP FUNCTION crm_sk_strip(text);
      ALTER TABLE email_search DROP CONSTRAINT email_search_email_id_fkey, DROP CONSTRAINT email_search_pkey;
      DROP INDEX email_search_account_date_idx, email_search_document_idx;
      TRUNCATE email_search;
      INSERT INTO email_search (email_id, email_account_id, date, document)
      SELECT e.id, e.email_account_id, e.date, ${old('e')} FROM emails e;
      ALTER TABLE email_search ADD PRIMARY KEY (email_id),
        ADD CONSTRAINT email_search_email_id_fkey FOREIGN KEY (email_id) REFERENCES emails (id) ON DELETE CASCADE;
      CREATE INDEX email_search_account_date_idx ON email_search (email_account_id, date DESC, email_id);
      CREATE INDEX email_search_document_idx ON email_search USING gin (document);
      `,
      { transaction },
    );
    await qi.sequelize.query('ANALYZE email_search', { transaction });
  });
}

async function scalar(qi: QueryInterface, sql: string, transaction: Transaction): Promise<string> {
  const [rows] = await qi.sequelize.query(sql, { transaction });
  return (rows as Array<{ value: string }>)[0].value;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
