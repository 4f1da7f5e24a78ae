import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { testApp, testContext } from '../support/harness.js';
import { personOf, team, type Member, type PersonView, type Team } from './support.js';

/**
 * Contacts of Alice's mailbox: a search word in every name, a tag on the people of the older 1,200
 * (so the walk of a tag's first page finds none in its first try and reads further).
 */
const CONTACTS = 2_200;
const tagged = (i: number) => i > 1_000;

/**
 * GET /api/people with a filter more than 1,000 people match (ADR 0172): the total stops at the bound
 * (totalExact false), and the page comes from walking the caller's contacts in the list's order; it
 * must be the page the exact order would give, each person once, and only what the caller sees.
 */
describe('people: a filter that matches more than the count bound', function () {
  this.timeout(120_000);
  const run = randomBytes(4).toString('hex');
  const TAG = `odberatel-${run}`;
  const WORD = `zz${run}`;
  const address = (i: number) => `k${i}-${run}@firma-${run}.sk`;
  const base = Date.UTC(2026, 10, 20, 12, 0, 0);
  let t: Team;

  before(async () => {
    t = await team(await testApp(), run);
    const { sequelize } = (await testContext()).db;
    // Contact i's newest mail is i minutes before `base`: the list's order is i ascending.
    await sequelize.query(
      `INSERT INTO contacts (user_id, email_account_id, email, name, last_email_at)
       SELECT $userId, $accountId, 'k' || i || '-' || $run || '@firma-' || $run || '.sk', 'Odberateľ ' || $word || ' ' || i,
              to_timestamp($base / 1000.0) - make_interval(mins => i)
         FROM generate_series(1, ${CONTACTS}) i`,
      { bind: { userId: t.aliceBox.userId, accountId: t.aliceBox.id, run, word: WORD, base } },
    );
    // Bob's mailbox holds three of the addresses, and an address of its own with the word and the tag.
    await sequelize.query(
      `INSERT INTO contacts (user_id, email_account_id, email, name, last_email_at)
       SELECT $userId, $accountId, e, 'Bobov ' || $word, to_timestamp($base / 1000.0) FROM unnest($emails::text[]) e`,
      { bind: { userId: t.bobBox.userId, accountId: t.bobBox.id, word: WORD, base, emails: [address(1001), address(1002), address(1003), `bob-only-${run}@firma-${run}.sk`] } },
    );
    await sequelize.query(
      `UPDATE people p SET tags = ARRAY[$tag] FROM person_emails pe
        WHERE pe.person_id = p.id AND pe.email LIKE '%-' || $run || '@firma-' || $run || '.sk'
          AND (pe.email LIKE 'bob-only-%' OR substring(pe.email FROM '^k([0-9]+)-')::int > 1000)`,
      { bind: { tag: TAG, run } },
    );
    // No ANALYZE: as right after an import, the statistics are those from before the 2,200 contacts,
    // and the people queries must not plan on them from every contact of the mailbox (person-visibility.ts).
    // Addresses 1002 and 1004 become one person (at 1002, the newer): it comes once, at its best contact.
    const merged = await t.alice.post(`/api/people/${await personOf(address(1002))}/merge`, { sourceIds: [await personOf(address(1004))] });
    expect(merged.status, JSON.stringify(merged.body)).to.equal(200);
  });

  /** The first address of each person of Alice's list in the exact order, filtered by `keep` (contact numbers). */
  const expectedOrder = (keep: (i: number) => boolean) =>
    Array.from({ length: CONTACTS }, (_, k) => k + 1)
      .filter((i) => i !== 1004 && keep(i))
      .map(address);

  async function page(who: Member, query: string): Promise<{ items: PersonView[]; pagination: Record<string, unknown> }> {
    const res = await who.get(`/api/people?${query}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data;
  }

  it('bounds the total of a tag held by more than 1,000 people and pages them in the exact order, each person once', async () => {
    const order = expectedOrder(tagged);
    expect(order.length).to.be.greaterThan(1_000);
    // A page of 20: the walk's first try reads 21 × 32 contacts, all before the tagged ones.
    const first = await page(t.alice, `tag=${TAG}&limit=20`);
    expect(first.pagination).to.include({ total: 1_000, totalExact: false, hasNext: true });
    expect(first.items.map((p) => p.emails[0])).to.deep.equal(order.slice(0, 20));
    const merged = first.items.find((p) => p.emails.includes(address(1002)))!;
    expect([...merged.emails].sort()).to.deep.equal([address(1002), address(1004)].sort());
    // A deeper page.
    const fifth = await page(t.alice, `tag=${TAG}&limit=50&page=5`);
    expect(fifth.items.map((p) => p.emails[0])).to.deep.equal(order.slice(200, 250));
    // The last page: the walk runs out of contacts, no page follows.
    const lastPage = Math.ceil(order.length / 50);
    const last = await page(t.alice, `tag=${TAG}&limit=50&page=${lastPage}`);
    expect(last.items.map((p) => p.emails[0])).to.deep.equal(order.slice((lastPage - 1) * 50));
    expect(last.pagination).to.include({ hasNext: false });
  });

  it('walks a search word every contact holds the same way, without the mail of mailboxes the caller does not read', async () => {
    const order = expectedOrder(() => true);
    const first = await page(t.alice, `search=${WORD}&limit=100`);
    expect(first.pagination).to.include({ total: 1_000, totalExact: false, hasNext: true });
    expect(first.items.map((p) => p.emails[0])).to.deep.equal(order.slice(0, 100));
    // Bob's mailbox is not Alice's: neither its own address nor its account comes with the people she shares with it.
    for (const person of first.items) expect(person.emailAccountIds).to.deep.equal([t.aliceBox.id]);
    const third = await page(t.alice, `search=${WORD}&limit=100&page=3`);
    expect(third.items.map((p) => p.emails[0])).to.deep.equal(order.slice(200, 300));
  });

  it('walks a search of two words the same way (its walk a statement of its own, after the bound is known)', async () => {
    const order = expectedOrder(() => true);
    const first = await page(t.alice, `search=${encodeURIComponent(`odberatel ${WORD}`)}&limit=100&page=2`);
    expect(first.pagination).to.include({ total: 1_000, totalExact: false, hasNext: true });
    expect(first.items.map((p) => p.emails[0])).to.deep.equal(order.slice(100, 200));
  });

  it('walks the unfiltered list the same way: newest first, each person once, any page', async () => {
    const order = expectedOrder(() => true);
    const first = await page(t.alice, 'limit=100');
    expect(first.pagination).to.include({ total: 1_000, totalExact: false, hasNext: true });
    expect(first.items.map((p) => p.emails[0])).to.deep.equal(order.slice(0, 100));
    const tenth = await page(t.alice, 'limit=100&page=10');
    expect(tenth.items.map((p) => p.emails[0])).to.deep.equal(order.slice(900, 1_000));
    // Pages whose walk met more than 1,000 people answer the bounded total without counting.
    expect(tenth.pagination).to.include({ total: 1_000, totalExact: false, hasNext: true });
    const last = await page(t.alice, `limit=100&page=${Math.ceil(order.length / 100)}`);
    expect(last.items.map((p) => p.emails[0])).to.deep.equal(order.slice(Math.floor(order.length / 100) * 100));
    expect(last.pagination).to.include({ total: 1_000, totalExact: false, hasNext: false });
  });

  it('counts exactly for a caller who sees fewer than 1,000 of the matches', async () => {
    const bobs = await page(t.bob, `tag=${TAG}&limit=50`);
    expect(bobs.pagination).to.include({ total: 4, totalExact: true, hasNext: false });
    // Ordered by Bob's own mail (all at `base`), then by the id of that contact: his own sight only.
    expect(
      bobs.items
        .map((p) => p.emails)
        .flat()
        .sort(),
    ).to.deep.equal([address(1001), address(1002), address(1003), `bob-only-${run}@firma-${run}.sk`].sort());
  });
});
