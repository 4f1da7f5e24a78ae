/**
 * Recall and precision of the word-form mechanisms of issue 49 on the Slovak word-form test set
 * (test/fixtures/slovak-word-forms.json: 56 words in 460 forms, and 105 forms of 33 other words that
 * share a beginning or a stem with them). Every form is searched for (as written, and without
 * diacritics) in documents that hold one form each (as written, with diacritics):
 *
 *   prefix       today's search: the folded query word is a prefix of the folded document word
 *   stem         prefix, or the light stemmer's stems are equal (crm_sk_stem, migration 0065)
 *   hunspell     prefix, or a lemma of PostgreSQL's ispell dictionary over Debian's hunspell-sk is shared
 *                (an unknown word is its own lemma), on the words as written
 *   hunspell-fold  the same with the dictionary folded (no diacritics in the .dict and .affix words)
 *   both         prefix, or stems equal, or a folded lemma shared
 *
 * Recall: of the pairs (query form, document form) of the same word, the share found. Precision: of
 * the pairs found, the share of the same word. Also the time per stem / lemma and the time a new
 * connection takes to load the dictionary.
 *
 *   BENCH_DATABASE_URL=postgres://... [BENCH_SUPERUSER_URL=...] node --import=tsx/esm bench/slovak-word-forms-bench.ts
 *
 * The database must be migrated (crm_sk_stem, crm_fold). The hunspell columns need the dictionary
 * files in the server's share directory (tsearch_data/sk_sk.dict, .affix and sk_sk_folded.*; see
 * docs/adr/0150-slovak-word-forms.md for how they were made); without them those columns say so.
 */
import fs from 'node:fs';
import pg from 'pg';

interface Group {
  lemma: string;
  forms: string[];
}
const fixture = JSON.parse(fs.readFileSync(new URL('../test/fixtures/slovak-word-forms.json', import.meta.url), 'utf8')) as { groups: Group[]; distractors: Group[] };
const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

interface Form {
  text: string;
  group: number;
  distractor: boolean;
}
const forms: Form[] = [
  ...fixture.groups.flatMap((g, i) => g.forms.map((text) => ({ text, group: i, distractor: false }))),
  ...fixture.distractors.flatMap((g, i) => g.forms.map((text) => ({ text, group: fixture.groups.length + i, distractor: true }))),
];

async function main(): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) throw new Error('BENCH_DATABASE_URL: a migrated database');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const words = [...new Set(forms.flatMap((f) => [f.text, fold(f.text)]))];
  const stems = await lookup(client, 'SELECT w, crm_sk_stem(crm_fold(w)) AS k FROM unnest($1::text[]) w', words);
  const t0 = process.hrtime.bigint();
  const n = 20;
  for (let i = 0; i < n; i++) await client.query('SELECT count(crm_sk_stem(crm_fold(w))) FROM unnest($1::text[]) w', [words]);
  const stemMicros = Number(process.hrtime.bigint() - t0) / 1e3 / n / words.length;
  const hunspell = await dictionary(process.env.BENCH_SUPERUSER_URL ?? url, 'sk_sk', words);
  const folded = await dictionary(process.env.BENCH_SUPERUSER_URL ?? url, 'sk_sk_folded', words.map(fold));
  await client.end();

  const prefix = (q: string, d: string) => fold(d).startsWith(fold(q));
  const keysOf = (m: Map<string, string[]> | null, w: string) => m?.get(w) ?? [w];
  const share = (a: string[], b: string[]) => a.some((x) => b.includes(x));
  const mechanisms: Array<[string, ((q: string, d: string) => boolean) | null]> = [
    ['prefix (today)', prefix],
    ['stem', (q, d) => prefix(q, d) || stems.get(q)![0] === stems.get(d)![0]],
    ['hunspell', hunspell && ((q, d) => prefix(q, d) || share(keysOf(hunspell, q), keysOf(hunspell, d)))],
    ['hunspell-fold', folded && ((q, d) => prefix(q, d) || share(keysOf(folded, fold(q)), keysOf(folded, fold(d))))],
    ['both', folded && ((q, d) => prefix(q, d) || stems.get(q)![0] === stems.get(d)![0] || share(keysOf(folded, fold(q)), keysOf(folded, fold(d))))],
  ];
  console.log(`${fixture.groups.length} words in ${forms.filter((f) => !f.distractor).length} forms, ${forms.filter((f) => f.distractor).length} distractor forms`);
  console.log('mechanism        query as written: recall  precision   query without diacritics: recall  precision   missed pairs (examples)');
  for (const [name, match] of mechanisms) {
    if (!match) {
      console.log(`${name.padEnd(16)} (dictionary not installed in the server's share directory)`);
      continue;
    }
    const cols: string[] = [];
    let missed: string[] = [];
    for (const asQuery of [(s: string) => s, fold]) {
      let relevant = 0;
      let found = 0;
      let right = 0;
      const misses: string[] = [];
      for (const q of forms.filter((f) => !f.distractor)) {
        for (const d of forms) {
          const same = d.group === q.group;
          const hit = match(asQuery(q.text), d.text);
          if (same) relevant++;
          if (hit) found++;
          if (hit && same) right++;
          if (same && !hit && q.text !== d.text) misses.push(`${q.text}→${d.text}`);
          if (hit && !same) misses.push(`${q.text}⇒${d.text}!`);
        }
      }
      cols.push(`${((100 * right) / relevant).toFixed(1)} %`.padStart(8), `${((100 * right) / found).toFixed(1)} %`.padStart(9));
      if (missed.length === 0) missed = misses;
    }
    console.log(
      `${name.padEnd(16)} ${cols[0]}  ${cols[1]}   ${cols[2]}  ${cols[3]}   ${missed
        .filter((m) => m.endsWith('!'))
        .slice(0, 6)
        .join(', ')} | ${missed
        .filter((m) => !m.endsWith('!'))
        .slice(0, 6)
        .join(', ')}`,
    );
  }
  console.log(`\nstemmer: ${stemMicros.toFixed(2)} µs per word (fold and stem, in SQL)`);
}

/** Lemmas per word (ts_lexize; unknown: the word itself), or null when the dictionary files are not there; prints its load time. */
async function dictionary(url: string, file: string, words: string[]): Promise<Map<string, string[]> | null> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`DROP TEXT SEARCH DICTIONARY IF EXISTS bench_${file}`);
    await admin.query(`CREATE TEXT SEARCH DICTIONARY bench_${file} (TEMPLATE = ispell, DictFile = ${file}, AffFile = ${file})`);
  } catch (err) {
    console.log(`${file}: ${(err as Error).message}`);
    await admin.end();
    return null;
  }
  await admin.end();
  // A new connection loads the dictionary on first use: that is what every pool connection would pay.
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const t0 = Date.now();
  await c.query(`SELECT ts_lexize('bench_${file}', 'faktúra')`);
  const loadMs = Date.now() - t0;
  const mem = await c.query<{ kb: string }>('SELECT coalesce(sum(total_bytes), 0) / 1024 AS kb FROM pg_backend_memory_contexts').catch(() => ({ rows: [{ kb: '?' }] }));
  const map = await lookup(c, `SELECT w, ts_lexize('bench_${file}', w) AS k FROM unnest($1::text[]) w`, words);
  const t1 = process.hrtime.bigint();
  await c.query(`SELECT count(ts_lexize('bench_${file}', w)) FROM unnest($1::text[]) w`, [words]);
  const micros = Number(process.hrtime.bigint() - t1) / 1e3 / words.length;
  console.log(`${file}: first use on a new connection ${loadMs} ms, backend memory then ${mem.rows[0].kb} kB, ${micros.toFixed(2)} µs per word`);
  await c.query(`DROP TEXT SEARCH DICTIONARY IF EXISTS bench_${file}`).catch(() => undefined);
  await c.end();
  return map;
}

async function lookup(c: pg.Client, sql: string, words: string[]): Promise<Map<string, string[]>> {
  const { rows } = await c.query<{ w: string; k: string | string[] | null }>(sql, [words]);
  return new Map(rows.map((r) => [r.w, r.k === null ? [r.w] : Array.isArray(r.k) ? r.k : [r.k]]));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
