import fs from 'node:fs';
import { expect } from 'chai';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { DOCUMENT, STEMMER } from '../../migrations/0065-slovak-search.js';
import { testContext } from '../support/harness.js';

/** The word-form test set of issue 49 (test/fixtures/slovak-word-forms.json). */
const fixture = JSON.parse(fs.readFileSync(new URL('../fixtures/slovak-word-forms.json', import.meta.url), 'utf8')) as {
  groups: Array<{ lemma: string; forms: string[] }>;
  distractors: Array<{ lemma: string; forms: string[] }>;
};
const words = [...fixture.groups.flatMap((g) => g.forms), ...fixture.distractors.flatMap((d) => [d.lemma, ...d.forms])];

/** Migration 0065's stemmer and document functions under names of this session only (pg_temp), beside the schema's own. */
const AS_0065 = (sql: string) =>
  sql
    .replaceAll('crm_sk_strip', 'pg_temp.strip_0065')
    .replaceAll('crm_sk_stem', 'pg_temp.stem_0065')
    .replaceAll('crm_search_names', 'pg_temp.names_0065')
    .replaceAll('crm_email_search_document', 'pg_temp.document_0065');

/** Runs `work` beside migration 0065's functions (pg_temp, the schema's search_path as theirs), dropped afterwards. */
async function with0065<T>(work: (sequelize: Sequelize, transaction: Transaction) => Promise<T>): Promise<T> {
  const { sequelize } = (await testContext()).db;
  return sequelize.transaction(async (transaction) => {
    const [{ path }] = await sequelize.query<{ path: string }>(`SELECT quote_ident(current_schema()) || ', pg_temp' AS path`, { type: QueryTypes.SELECT, transaction });
    await sequelize.query(AS_0065(`${STEMMER(path)} ${DOCUMENT(path)}`), { transaction });
    const result = await work(sequelize, transaction);
    await sequelize.query('DROP FUNCTION pg_temp.document_0065(text, text, text, text, jsonb, text), pg_temp.names_0065(text), pg_temp.stem_0065(text), pg_temp.strip_0065(text)', {
      transaction,
    });
    return result;
  });
}

/**
 * The Slovak stemmer and the documents it goes into (crm_sk_strip, crm_sk_stem, crm_sk_changed_stems,
 * crm_email_search_document, crm_search_names): migrations 0065, 0081 and 0082 made them faster, never
 * different.
 */
describe('search: the Slovak stemmer', function () {
  this.timeout(60_000);

  it('answers as migration 0065 defined it, word for word (PL/pgSQL since migration 0081)', async () => {
    expect(words.length).to.be.above(500);
    const rows = await with0065((sequelize, transaction) =>
      sequelize.query<{ word: string; strip: string; stem: string; strip_0065: string; stem_0065: string }>(
        `SELECT w AS word, crm_sk_strip(w) AS strip, crm_sk_stem(w) AS stem, pg_temp.strip_0065(w) AS strip_0065, pg_temp.stem_0065(w) AS stem_0065
             FROM (SELECT crm_fold(x) AS w FROM unnest($words::text[]) x UNION SELECT x FROM unnest($edges::text[]) x) u`,
        { bind: { words, edges: ['', 'pes', 'x1y', 'paliet', 'faktura', '2026', '-118', 'ovia', 'bratiach'] }, type: QueryTypes.SELECT, transaction },
      ),
    );
    expect(rows.filter((r) => r.strip !== r.strip_0065 || r.stem !== r.stem_0065)).to.deep.equal([]);
    // Not vacuous: most words lose an ending, and the mobile vowel goes where it should.
    expect(rows.filter((r) => r.stem !== r.word).length).to.be.above(rows.length / 2);
    expect(rows.find((r) => r.word === 'paliet')?.stem).to.equal('palt');
  });

  it("writes the same documents as migration 0065's, stems taken in one call per document since migration 0082", async () => {
    // Texts of the word-form set in subjects and bodies, with addresses, a Cc and attachments' names.
    const texts = Array.from({ length: 40 }, (_, i) => ({
      subject: words.slice(i * 7, i * 7 + 4).join(' '),
      body: `${words.slice(i * 13, i * 13 + 30).join(', ')}. Tel. 0905 123 ${i}; faktúra-2026-${i}.`,
      sender: `Ján Kováč <jan${i}@mail.tatralogistika.sk>`,
      recipients: i % 3 === 0 ? null : `objednavky@firma-${i}.sk`,
      addresses: i % 2 === 0 ? { cc: [{ email: `uctaren@pobocka.firma-${i}.sk` }] } : null,
      names: i % 4 === 0 ? null : `Faktúra-2026-${i}.pdf preberací_protokol_${i}.xlsx`,
    }));
    const rows = await with0065((sequelize, transaction) =>
      sequelize.query<{ now: string; before: string; names_now: string; names_before: string }>(
        `SELECT crm_email_search_document(t.subject, t.body, t.sender, t.recipients, t.addresses, t.names)::text AS now,
                  pg_temp.document_0065(t.subject, t.body, t.sender, t.recipients, t.addresses, t.names)::text AS before,
                  crm_search_names(t.names)::text AS names_now, pg_temp.names_0065(t.names)::text AS names_before
             FROM jsonb_to_recordset($texts::jsonb) AS t(subject text, body text, sender text, recipients text, addresses jsonb, names text)`,
        { bind: { texts: JSON.stringify(texts) }, type: QueryTypes.SELECT, transaction },
      ),
    );
    expect(rows).to.have.length(texts.length);
    for (const row of rows) expect(row.now).to.equal(row.before);
    for (const row of rows) expect(row.names_now).to.equal(row.names_before);
    // Not vacuous: the documents hold stems, domains and names.
    expect(rows[1].now).to.include("'tatralogistika.sk'").and.include("'protokol'");
  });
});
