import { companyShownTo } from '../companies/company-visibility.js';
import type { Bind, Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { offsetOf, type PageRequest } from '../shared/pagination.js';
import {
  countVerdict,
  hasBoundTest,
  PEOPLE_COUNT_BOUND,
  personCountQuery,
  personDetailsQuery,
  personFilteredQuery,
  personWalkQuery,
  type FilteredQueryParts,
  type PersonFilter,
} from './person-query.js';
import { UNFILTERED_ROWS_PER_PERSON, WALK_MAX_ROWS, WALK_ROWS_PER_PERSON, walkedPage, type WalkRow } from './person-walk.js';
import { RAREST_FIRST, searchTerms } from './person-search.js';
import { toPersonRecord, type PersonFields, type PersonRecord, type PersonRow } from './person-records.js';
import { editAccessToPerson } from './person-visibility.js';
import type { MergedFields } from './person-merge.js';

export interface PersonEdits {
  name?: string | null;
  phone?: string | null;
  title?: string | null;
  tags?: string[];
  notes?: string | null;
  companyId?: string | null;
}

/** The column of each editable field. */
const COLUMNS: Record<keyof PersonEdits, string> = {
  name: 'name',
  phone: 'phone',
  title: 'title',
  tags: 'tags',
  notes: 'notes',
  companyId: 'company_id',
};

export interface PersonPage {
  items: PersonRecord[];
  total: number;
  totalExact: boolean;
  hasNext: boolean;
  /** Present with a company filter: false when the caller does not see that company (404). */
  companyVisible?: boolean;
}

/** The answer of personFilteredQuery (each part only when asked for). */
interface FilteredRow extends Partial<WalkRow> {
  company_access: boolean | null;
  total?: number;
  ids?: string[];
}

/**
 * All data access of the people area (tables people and person_emails, kept from contacts by the
 * triggers of migration 0050, and each contact's person_id, 0083; docs/adr/0135, 0172). Every lookup
 * for a caller is scoped by what they see (person-visibility.ts), decided in the statement itself.
 */
export class PersonRepository {
  constructor(private readonly sql: Sql) {}

  async listPage(userId: string, filter: PersonFilter, page: PageRequest): Promise<PersonPage> {
    // One statement after the other: a request holds at most one pool connection at a time (ADR 0121).
    if (filter.search || filter.companyId || filter.tag) return this.matchedPage(userId, filter, page);
    const offset = offsetOf(page);
    const walk = (rows: number) => this.sql.one<WalkRow>(personWalkQuery(filter), { userId, rows }) as Promise<WalkRow>;
    // No bound on the walk: without a filter nearly every contact's person is on the list, and a walk
    // that runs out of contacts ends.
    const firstRows = (offset + page.limit + 1) * UNFILTERED_ROWS_PER_PERSON;
    const picked = (await walkedPage(await walk(firstRows), firstRows, { offset, limit: page.limit }, walk, Number.MAX_SAFE_INTEGER))!;
    const items = await this.details(userId, picked.ids);
    // A walk that met more people than the bound (a page from the 20th of 50 on) has answered the count.
    if (picked.seen > PEOPLE_COUNT_BOUND) return { items, total: PEOPLE_COUNT_BOUND, totalExact: false, hasNext: picked.hasNext };
    let verdict = countVerdict((await this.sql.one<{ total: number; scanned: number }>(personCountQuery(filter), { userId }))!);
    if (verdict === 'count-all') {
      const all = (await this.sql.one<{ total: number; scanned: number }>(personCountQuery(filter, false), { userId }))!;
      verdict = { total: Math.min(all.total, PEOPLE_COUNT_BOUND), totalExact: all.total <= PEOPLE_COUNT_BOUND };
    }
    return { items, ...verdict, hasNext: picked.hasNext };
  }

  /**
   * A filtered page: the matches checked up to the count bound. Beyond it the total is the bound (not
   * exact) and the page comes from the walk (ADR 0172), in the same statement where the filter has a
   * cheap bound test (hasBoundTest), else in one of its own; further tries read four times as many
   * contacts, and past WALK_MAX_ROWS the page is ordered from every match instead.
   */
  private async matchedPage(userId: string, filter: PersonFilter, page: PageRequest): Promise<PersonPage> {
    const terms = filter.search ? await this.rarestFirst(searchTerms(filter.search)) : [];
    const offset = offsetOf(page);
    const rows = Math.min((offset + page.limit + 1) * WALK_ROWS_PER_PERSON, WALK_MAX_ROWS);
    // The walk rides along, run only past the bound, where the filter decides the bound cheaply.
    const together = hasBoundTest(filter, terms.length);
    const first = await this.filtered(userId, filter, terms, page, { match: 'bounded', ...(together ? { walkRows: rows } : {}) });
    const companyVisible = filter.companyId ? { companyVisible: first.company_access === true } : {};
    const total = first.total!;
    if (total <= PEOPLE_COUNT_BOUND) {
      const items = await this.details(userId, first.ids!.slice(0, page.limit));
      return { items, total, totalExact: true, hasNext: first.ids!.length > page.limit, ...companyVisible };
    }
    // A further try looks the candidates up again (a moment later: a person who became one since is
    // found, one who no longer is is left out, as by a request a moment later).
    const walk = async (rows: number) => (await this.filtered(userId, filter, terms, page, { match: 'none', walkRows: rows })) as WalkRow;
    const firstWalk = together ? (first as WalkRow) : await walk(rows);
    let picked: { ids: string[]; hasNext: boolean } | undefined = await walkedPage(firstWalk, rows, { offset, limit: page.limit }, walk);
    if (!picked) {
      const all = await this.filtered(userId, filter, terms, page, { match: 'all' });
      picked = { ids: all.ids!.slice(0, page.limit), hasNext: all.ids!.length > page.limit };
    }
    const items = await this.details(userId, picked.ids);
    return { items, total: PEOPLE_COUNT_BOUND, totalExact: false, hasNext: picked.hasNext, ...companyVisible };
  }

  private async filtered(userId: string, filter: PersonFilter, terms: string[], page: PageRequest, parts: FilteredQueryParts): Promise<FilteredRow> {
    const bind: Bind = { userId, limit: page.limit + 1, offset: offsetOf(page) };
    return (await this.sql.one<FilteredRow>(personFilteredQuery(filter, bind, terms, parts).sql, bind))!;
  }

  /** A search's terms with the rarest first (RAREST_FIRST): it alone drives the lookup of candidates. */
  private async rarestFirst(terms: string[]): Promise<string[]> {
    if (terms.length < 2) return terms;
    const order = await this.sql.select<{ i: number }>(RAREST_FIRST, { terms });
    return order.map(({ i }) => terms[i]);
  }

  /** The people of `ids` as the caller sees them, in the order of `ids` (those they do not see are left out). */
  private async details(userId: string, ids: readonly string[], tx?: Tx): Promise<PersonRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.sql.select<PersonRow>(personDetailsQuery(), { userId, ids }, tx);
    const byId = new Map(rows.map((r) => [r.id, toPersonRecord(r)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** The person as the caller sees them, or undefined when they see none of their addresses. */
  async find(userId: string, personId: string, tx?: Tx): Promise<PersonRecord | undefined> {
    const [person] = await this.details(userId, [personId], tx);
    return person;
  }

  /**
   * Changes a person the caller may edit, the right checked in the same statement (a share removed a
   * moment ago lets nothing through). `access`: null when they do not see the person, false without
   * the right; `companyVisible` false when a companyId was given that they do not see (nothing changes).
   */
  async update(userId: string, personId: string, values: PersonEdits, tx?: Tx): Promise<{ access: boolean | null; companyVisible: boolean }> {
    const sets = ['updated_at = now()'];
    const bind: Bind = { userId, personId };
    for (const [field, column] of Object.entries(COLUMNS) as Array<[keyof PersonEdits, string]>) {
      if (values[field] === undefined) continue;
      sets.push(`${column} = $${field}`);
      bind[field] = values[field];
    }
    const company = values.companyId ? `(SELECT true FROM companies co WHERE co.id = $companyId AND ${companyShownTo('co')})` : 'true';
    const row = await this.sql.one<{ access: boolean | null; company_visible: boolean | null }>(
      `WITH access AS (SELECT ${editAccessToPerson('$personId')} AS may, ${company} AS company_visible),
            changed AS (UPDATE people SET ${sets.join(', ')}
                         WHERE id = $personId AND (SELECT may AND company_visible IS TRUE FROM access) RETURNING id)
       SELECT a.may AS access, a.company_visible, (SELECT count(*) FROM changed) AS changed FROM access a`,
      bind,
      tx,
    );
    return { access: row?.access ?? null, companyVisible: row?.company_visible === true };
  }

  /**
   * Locks the people of `ids` that exist and answers their ids: their address rows first, then the
   * people, each in key order (the order crm_people_forget takes them, migration 0083). Held FOR
   * UPDATE, a contact being added to one of the addresses is committed before the merge moves the
   * addresses (and with them, through the foreign key, the contacts), or waits and then takes the target.
   */
  async lock(ids: readonly string[], tx: Tx): Promise<string[]> {
    await this.sql.select('SELECT 1 FROM person_emails WHERE person_id = ANY($ids::uuid[]) ORDER BY email FOR UPDATE', { ids }, tx);
    const rows = await this.sql.select<{ id: string }>('SELECT id FROM people WHERE id = ANY($ids::uuid[]) ORDER BY id FOR UPDATE', { ids }, tx);
    return rows.map((r) => r.id);
  }

  /** The caller's right on each of `ids` (editAccessToPerson: null, false or true). */
  async editAccess(userId: string, ids: readonly string[], tx?: Tx): Promise<Map<string, boolean | null>> {
    const rows = await this.sql.select<{ id: string; access: boolean | null }>(
      `SELECT u.id::text AS id, ${editAccessToPerson('u.id')} AS access FROM unnest($ids::uuid[]) AS u(id)`,
      { userId, ids },
      tx,
    );
    return new Map(rows.map((r) => [r.id, r.access]));
  }

  /** The stored shared fields of the people of `ids` (a merge's input). */
  async fields(ids: readonly string[], tx: Tx): Promise<PersonFields[]> {
    return this.sql.select<PersonFields>(
      'SELECT id::text AS id, name, phone, title, tags, notes, company_id::text AS "companyId" FROM people WHERE id = ANY($ids::uuid[])',
      { ids },
      tx,
    );
  }

  /**
   * The sources' addresses and contacts become the target's, the target takes the merged fields, the
   * sources go; the rows are locked already (lock). Answers how many addresses moved.
   */
  async merge(targetId: string, sourceIds: readonly string[], values: MergedFields, tx: Tx): Promise<number> {
    // Their contacts go with them: the foreign key of contacts (person_id, email) cascades (migration 0083).
    const moved = await this.sql.execute('UPDATE person_emails SET person_id = $targetId WHERE person_id = ANY($sourceIds::uuid[])', { targetId, sourceIds }, tx);
    await this.sql.execute(
      `UPDATE people SET name = $name, phone = $phone, title = $title, tags = $tags::text[], notes = $notes, company_id = $companyId, updated_at = now()
        WHERE id = $targetId`,
      { targetId, ...values },
      tx,
    );
    await this.sql.execute('DELETE FROM people WHERE id = ANY($sourceIds::uuid[])', { sourceIds }, tx);
    return moved;
  }
}
