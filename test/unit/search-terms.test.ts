/**
 * Which search words go to the index and which are checked on the rows found (src/emails/search-terms.ts),
 * and the cache of the statistics that decide it.
 */
import { expect } from 'chai';
import type { Sql } from '../../src/db/sql.js';
import {
  COMMON_WORD_SHARE,
  HIT_BOUND,
  MAX_SEARCH_TERMS,
  SHORT_PREFIX,
  SearchWordStatistics,
  hitProbeSql,
  hitsSql,
  searchConditions,
  searchParts,
  searchTerms,
} from '../../src/emails/search-terms.js';
import { searchCountIsTotal } from '../../src/emails/email-query.js';

const shares = new Map([
  ['objednavke', 0.97],
  ['objednavka', 0.4],
  ['faktura', 0.9],
  ['zriedka', COMMON_WORD_SHARE / 2],
]);

describe('unit: search terms', () => {
  it('checks a common word on the rows the rare words found, and looks the rare ones up in the index', () => {
    expect(searchTerms('objednávke 12345', shares)).to.deep.equal([
      { text: 'objednávke', phrase: false, indexed: false },
      { text: '12345', phrase: false, indexed: true },
    ]);
    expect(searchTerms('12345 Faktúra zriedka', shares)).to.deep.equal([
      { text: '12345', phrase: false, indexed: true },
      { text: 'Faktúra', phrase: false, indexed: false },
      { text: 'zriedka', phrase: false, indexed: true },
    ]);
  });

  it('counts every word a prefix matches: "objednávk" is as common as its two words together', () => {
    expect(
      searchTerms(
        'objednávk 7',
        new Map([
          ['objednavke', 0.015],
          ['objednavka', 0.015],
        ]),
      )[0].indexed,
    ).to.equal(false);
    expect(
      searchTerms(
        'objednávke 7',
        new Map([
          ['objednavke', 0.015],
          ['objednavka', 0.015],
        ]),
      )[0].indexed,
    ).to.equal(true);
  });

  it('counts a number as itself only: "2026" is not as common as every number starting with it (migration 0080)', () => {
    const years = new Map([
      ['2026', 0.01],
      ['20260101', 0.015],
    ]);
    expect(searchTerms('2026', years)[0].indexed).to.equal(true);
    expect(searchTerms('2026', new Map([['2026', 0.03]]))[0].indexed).to.equal(false);
    // A word of letters and digits is a word: its prefix counts every lexeme it starts.
    expect(
      searchTerms(
        'v2026',
        new Map([
          ['v2026', 0.01],
          ['v20260101', 0.015],
        ]),
      )[0].indexed,
    ).to.equal(false);
  });

  it('keeps common words out of the index even when all are common, and every word in it when nothing is known', () => {
    expect(searchTerms('objednávke faktúra', shares).some((t) => t.indexed)).to.equal(false);
    expect(searchTerms('objednávke 12345', new Map()).every((t) => t.indexed)).to.equal(true);
  });

  it(`never looks up a prefix shorter than ${SHORT_PREFIX} letters (folded) in the index: it matches too many words`, () => {
    expect(searchTerms('fa Ža 12 zriedka', new Map())).to.deep.equal([
      { text: 'fa', phrase: false, indexed: false },
      { text: 'Ža', phrase: false, indexed: false },
      { text: '12', phrase: false, indexed: false },
      { text: 'zriedka', phrase: false, indexed: true },
    ]);
    expect(searchTerms('faž', new Map())[0].indexed).to.equal(true);
  });

  it(`gives at most ${MAX_SEARCH_TERMS} conditions; the words past them share the last one`, () => {
    const words = Array.from({ length: 12 }, (_, i) => `w${i}`);
    const terms = searchTerms(`  ${words.join('   ')} `, shares);
    expect(terms).to.have.length(MAX_SEARCH_TERMS);
    expect(terms.at(-1)!.text).to.equal(words.slice(MAX_SEARCH_TERMS - 1).join(' '));
    expect(terms.map((t) => t.text).join(' ')).to.equal(words.join(' '));
  });

  it('binds every word and never splices it into the SQL', () => {
    const bind: Record<string, unknown> = {};
    const sql = searchConditions("objednávke x') OR true --", shares, bind).join(' AND ');
    expect(sql).not.to.include('objednávke').and.not.to.include('OR true');
    expect(bind).to.deep.equal({ search: "objednávke x') OR true --", search0: 'objednávke', search1: "x')", search2: 'OR', search3: 'true', search4: '--' });
    expect(sql).to.include('(s.document @@ crm_search_tsquery($search0)) IS TRUE');
    expect(sql).to.include('OR s.document @@ crm_search_tsquery($search1))');
  });

  it('reads the statistics once per period, and again after it', async () => {
    let reads = 0;
    let now = 0;
    const sql = {
      one: async () => {
        reads++;
        return { lexemes: ['faktúra', 'a'], shares: [0.5, 1, 0.5, 1, 0] };
      },
    } as unknown as Sql;
    const stats = new SearchWordStatistics(sql, 1000, () => now);
    expect([...(await stats.shares())]).to.deep.equal([
      ['faktúra', 0.5],
      ['a', 1],
    ]);
    now = 999;
    await stats.shares();
    expect(reads).to.equal(1);
    now = 1000;
    await stats.shares();
    expect(reads).to.equal(2);
  });

  it('reads once for searches that ask at the same time, and does not keep a failed read', async () => {
    let reads = 0;
    let fail = true;
    const sql = {
      one: async () => {
        reads++;
        await new Promise((r) => setImmediate(r));
        if (fail) throw new Error('database gone');
        return { lexemes: ['a'], shares: [1] };
      },
    } as unknown as Sql;
    const stats = new SearchWordStatistics(sql, 60_000);
    const failed = await Promise.allSettled([stats.shares(), stats.shares(), stats.shares()]);
    expect(failed.map((r) => r.status)).to.deep.equal(['rejected', 'rejected', 'rejected']);
    expect(reads).to.equal(1);
    fail = false;
    const [a, b] = await Promise.all([stats.shares(), stats.shares()]);
    expect(a).to.equal(b);
    expect([...a]).to.deep.equal([['a', 1]]);
    expect(reads).to.equal(2);
  });

  it('knows no common word before the table has statistics', async () => {
    const stats = new SearchWordStatistics({ one: async () => undefined } as unknown as Sql);
    expect((await stats.shares()).size).to.equal(0);
  });
});

describe('unit: search parts (issue 49)', () => {
  it('reads "quoted phrases" as one exact term and the rest as words; a quote left open is ignored', () => {
    expect(searchParts('"dodací list" faktúra')).to.deep.equal([
      { text: 'dodací list', phrase: true },
      { text: 'faktúra', phrase: false },
    ]);
    expect(searchParts('faktúra "118')).to.deep.equal([
      { text: 'faktúra', phrase: false },
      { text: '118', phrase: false },
    ]);
    expect(searchParts('"  " a""b')).to.deep.equal([
      { text: 'a', phrase: false },
      { text: 'b', phrase: false },
    ]);
  });

  it('looks a phrase up in the index when one of its words is not common, and builds the hits only from selective terms', () => {
    const common = new Map([
      ['dobry', 0.9],
      ['den', 0.9],
    ]);
    expect(searchTerms('"dobrý deň"', common)[0]).to.deep.equal({ text: 'dobrý deň', phrase: true, indexed: false });
    expect(searchTerms('"dobrý deň 118"', common)[0].indexed).to.equal(true);
    expect(hitsSql('dobrý deň', common, {})).to.equal(null);
    const bind: Record<string, unknown> = {};
    const sql = hitsSql('dobrý "faktúra 118"', common, bind)!;
    expect(sql).to.contain('crm_search_phrase($search1)').and.not.contain('$search0)');
    expect(bind).to.include({ search1: 'faktúra 118' });
    expect(hitProbeSql('faktúra', new Map(), HIT_BOUND)!.sql).to.contain(`LIMIT ${HIT_BOUND + 1}`);
    expect(hitProbeSql('dobrý deň', common, HIT_BOUND)).to.equal(null);
  });
});

/** What the rows the index found carry and are tested for, and when their count is the list's total (docs/adr/0151). */
describe('unit: the rows a search found through the index', () => {
  it('carries each document only when a word is left to test on it, and tests only that word', () => {
    // "zriedka" is selective, "faktúra" is common: the index finds by the first, the second is tested on the rows.
    expect(hitsSql('zriedka', shares, {})).to.contain('NULL::tsvector AS document');
    expect(hitsSql('zriedka faktúra', shares, {})).to.contain('s.document AS document');
    const found = searchConditions('zriedka faktúra', shares, {}, 'found').join(' AND ');
    expect(found).to.contain('$search1').and.not.contain('$search0');
    expect(searchConditions('zriedka', shares, {}, 'found')).to.deep.equal(['crm_search_tsquery($search) IS NOT NULL']);
  });

  it('takes the count of the hits as the total only when every word is selective and nothing else filters', () => {
    expect(searchCountIsTotal({ search: 'zriedka' }, shares)).to.equal(true);
    expect(searchCountIsTotal({ search: 'zriedka', sort: 'oldest' }, shares)).to.equal(true);
    expect(searchCountIsTotal({ search: 'zriedka faktúra' }, shares)).to.equal(false);
    const day = new Date('2026-12-01T00:00:00Z');
    for (const other of [{ unread: false }, { unread: true }, { emailAccountId: 'a' }, { contactId: 'c' }, { from: day }, { before: day }, { awaitingReply: true }]) {
      expect(searchCountIsTotal({ search: 'zriedka', ...other }, shares), JSON.stringify(other)).to.equal(false);
    }
  });
});
