import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { testApp, testContext } from '../support/harness.js';
import { personOf, team, type Member, type Team } from './support.js';

/**
 * The total of a filtered people list right at the count bound (ADR 0172, amended in session 22): a
 * cheap test decides "more than 1,000" without reading each person's sight, so it must count people,
 * not contacts, and only people the filter really matches. 1,002 contacts in Alice's mailbox, all
 * tagged; the word in the first 1,001; contact 1 typed by hand (no mail); contacts 2 and 3 one person.
 */
describe('people: the total at the count bound', function () {
  this.timeout(120_000);
  const run = randomBytes(4).toString('hex');
  const TAG = `hranica-${run}`;
  const WORD = `hh${run}`;
  const address = (i: number) => `h${i}-${run}@hranica-${run}.sk`;
  let t: Team;

  before(async () => {
    t = await team(await testApp(), run);
    const { sequelize } = (await testContext()).db;
    await sequelize.query(
      `INSERT INTO contacts (user_id, email_account_id, email, name, last_email_at)
       SELECT $userId, $accountId, 'h' || i || '-' || $run || '@hranica-' || $run || '.sk',
              'Zákazník ' || CASE WHEN i <= 1001 THEN $word || ' ' ELSE '' END || i,
              CASE WHEN i = 1 THEN NULL ELSE now() - make_interval(mins => i) END
         FROM generate_series(1, 1002) i`,
      { bind: { userId: t.aliceBox.userId, accountId: t.aliceBox.id, run, word: WORD } },
    );
    await sequelize.query(`UPDATE people p SET tags = ARRAY[$tag] FROM person_emails pe WHERE pe.person_id = p.id AND pe.email LIKE '%-' || $run || '@hranica-' || $run || '.sk'`, {
      bind: { tag: TAG, run },
    });
    const merged = await t.alice.post(`/api/people/${await personOf(address(2))}/merge`, { sourceIds: [await personOf(address(3))] });
    expect(merged.status, JSON.stringify(merged.body)).to.equal(200);
  });

  async function pagination(who: Member, query: string): Promise<Record<string, unknown>> {
    const res = await who.get(`/api/people?${query}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data.pagination;
  }

  it('counts a word held by 1,001 contacts of 1,000 people exactly: people, not contacts', async () => {
    expect(await pagination(t.alice, `search=${WORD}&limit=10`)).to.include({ total: 1_000, totalExact: true, hasNext: true });
  });

  it('counts a tag on 1,001 people of whom 1,000 are met in mail exactly: the tag shows only through mail', async () => {
    expect(await pagination(t.alice, `tag=${TAG}&limit=10`)).to.include({ total: 1_000, totalExact: true, hasNext: true });
  });

  it('bounds the word once one more person holds it (contact 1,002 renamed): 1,001 people', async () => {
    const { sequelize } = (await testContext()).db;
    await sequelize.query(`UPDATE contacts SET name = name || ' ' || $word WHERE email = $email`, { bind: { word: WORD, email: address(1002) } });
    expect(await pagination(t.alice, `search=${WORD}&limit=10`)).to.include({ total: 1_000, totalExact: false, hasNext: true });
  });
});
