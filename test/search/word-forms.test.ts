import fs from 'node:fs';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { STEMMER } from '../../migrations/0065-slovak-search.js';
import { testContext } from '../support/harness.js';

/** The word-form test set of issue 49 (test/fixtures/slovak-word-forms.json). */
const fixture = JSON.parse(fs.readFileSync(new URL('../fixtures/slovak-word-forms.json', import.meta.url), 'utf8')) as {
  groups: Array<{ lemma: string; forms: string[] }>;
  distractors: Array<{ lemma: string; forms: string[] }>;
};

/** The Slovak stemmer of the database (crm_sk_strip, crm_sk_stem: migrations 0065 and 0081). */
describe('search: the Slovak stemmer', function () {
  this.timeout(60_000);

  it('answers as migration 0065 defined it, word for word, since it runs as PL/pgSQL (migration 0081)', async () => {
    const { sequelize } = (await testContext()).db;
    const words = [...fixture.groups.flatMap((g) => g.forms), ...fixture.distractors.flatMap((d) => [d.lemma, ...d.forms])];
    expect(words.length).to.be.above(500);
    await sequelize.transaction(async (transaction) => {
      // 0065's SQL definitions under names of this session only, beside the schema's own.
      const definitions = STEMMER('pg_catalog, pg_temp').replaceAll('crm_sk_strip', 'pg_temp.strip_0065').replaceAll('crm_sk_stem', 'pg_temp.stem_0065');
      await sequelize.query(definitions, { transaction });
      const rows = await sequelize.query<{ word: string; strip: string; stem: string; strip_0065: string; stem_0065: string }>(
        `SELECT w AS word, crm_sk_strip(w) AS strip, crm_sk_stem(w) AS stem, pg_temp.strip_0065(w) AS strip_0065, pg_temp.stem_0065(w) AS stem_0065
           FROM (SELECT crm_fold(x) AS w FROM unnest($words::text[]) x UNION SELECT x FROM unnest($edges::text[]) x) u`,
        { bind: { words, edges: ['', 'pes', 'x1y', 'paliet', 'faktura', '2026', '-118', 'ovia', 'bratiach'] }, type: QueryTypes.SELECT, transaction },
      );
      const differing = rows.filter((r) => r.strip !== r.strip_0065 || r.stem !== r.stem_0065);
      expect(differing).to.deep.equal([]);
      // Not vacuous: most words lose an ending, and the mobile vowel goes where it should.
      expect(rows.filter((r) => r.stem !== r.word).length).to.be.above(rows.length / 2);
      expect(rows.find((r) => r.word === 'paliet')?.stem).to.equal('palt');
      await sequelize.query('DROP FUNCTION pg_temp.stem_0065(text), pg_temp.strip_0065(text)', { transaction });
    });
  });
});
