import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { cutPage, type PageRequest } from '../shared/pagination.js';
import { companyListQuery, companyQuery, type CompanyFilter, type CompanyScope } from './company-query.js';
import { toCompanyRecord, type CompanyRecord, type CompanyRow } from './company-records.js';
import { editAccessToCompany } from './company-visibility.js';

export interface CompanyEdits {
  name?: string | null;
  notes?: string | null;
  registrationNumber?: string | null;
  vatId?: string | null;
  address?: string | null;
  phone?: string | null;
  website?: string | null;
}

/** The column of each editable field. */
const COLUMNS: Record<keyof CompanyEdits, string> = {
  name: 'name',
  notes: 'notes',
  registrationNumber: 'registration_number',
  vatId: 'vat_id',
  address: 'address',
  phone: 'phone',
  website: 'website',
};

/** All data access of the companies area; every lookup for a caller is scoped by what they see (company-visibility.ts). */
export class CompanyRepository {
  constructor(private readonly sql: Sql) {}

  async listPage(scope: CompanyScope, filter: CompanyFilter, page: PageRequest, tx?: Tx): Promise<{ items: CompanyRecord[]; total: number; hasNext: boolean }> {
    const { pageSql, countSql, bind } = companyListQuery(scope, filter, page);
    // One after the other: a request holds at most one pool connection at a time (ADR 0121).
    const rows = await this.sql.select<CompanyRow>(pageSql, bind, tx);
    const count = await this.sql.one<{ total: number }>(countSql, bind, tx);
    const cut = cutPage(rows, page);
    return { items: cut.rows.map(toCompanyRecord), total: count!.total, hasNext: cut.hasNext };
  }

  /** The company with its figures over the caller's contacts, or undefined when they see none. */
  async find(userId: string, companyId: string, tx?: Tx): Promise<CompanyRecord | undefined> {
    const { sql, bind } = companyQuery(userId, companyId);
    const row = await this.sql.one<CompanyRow>(sql, bind, tx);
    return row && toCompanyRecord(row);
  }

  /**
   * Changes a company the caller may edit (the right checked in the same statement, so a share removed
   * a moment ago cannot let the write through). `access` is null when the caller does not see the
   * company, false when they see it without the right to edit it; `domain` is set when it changed.
   */
  async update(userId: string, companyId: string, values: CompanyEdits, tx?: Tx): Promise<{ access: boolean | null; domain?: string }> {
    const sets = ['updated_at = now()'];
    const bind: Record<string, unknown> = { userId, companyId };
    for (const [field, column] of Object.entries(COLUMNS) as Array<[keyof CompanyEdits, string]>) {
      if (values[field] === undefined) continue;
      sets.push(`${column} = $${field}`);
      bind[field] = values[field];
    }
    const row = await this.sql.one<{ access: boolean | null; domain: string | null }>(
      `WITH access AS (SELECT ${editAccessToCompany()} AS may),
            changed AS (UPDATE companies SET ${sets.join(', ')} WHERE id = $companyId AND (SELECT may FROM access) RETURNING domain)
       SELECT (SELECT may FROM access) AS access, (SELECT domain FROM changed) AS domain`,
      bind,
      tx,
    );
    return { access: row?.access ?? null, ...(row?.domain ? { domain: row.domain } : {}) };
  }
}
