import { selectList, type ColumnOf, type ColumnType, type TableRow } from '../db/rows.js';
import type { Sql } from '../db/sql.js';
import type { Tx } from '../db/transactions.js';
import { accountsWith } from '../email-accounts/account-rights.js';
import { shownCompanyName } from '../companies/company-visibility.js';
import { personPlaceholderQuery } from '../people/person-query.js';
import { offsetOf, type Page, type PageRequest } from '../shared/pagination.js';

/** What the placeholders are filled from: one contact the caller may see, its company, and the caller. */
export type PlaceholderSource = TableRow<'users', 'first_name' | 'last_name'> & {
  contact_name: ColumnType<'contacts', 'name'>;
  company_name: ColumnType<'companies', 'name'>;
};

export interface TemplateRecord {
  id: string;
  userId: string;
  name: string;
  subject: string;
  text: string;
  html: string | null;
  shared: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface TemplateFields {
  name: string;
  subject: string;
  text: string;
  html: string | null;
  shared: boolean;
}

const TEMPLATE_COLUMNS = ['id', 'user_id', 'name', 'subject', 'text', 'html', 'shared', 'created_at', 'updated_at'] as const satisfies readonly ColumnOf<'email_templates'>[];
type TemplateRow = TableRow<'email_templates', (typeof TEMPLATE_COLUMNS)[number]>;
const COLUMNS = selectList(TEMPLATE_COLUMNS);
/** The templates a user may see: their own and every shared one. */
const VISIBLE = '(user_id = $userId OR shared)';

const toRecord = (r: TemplateRow): TemplateRecord => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  subject: r.subject,
  text: r.text,
  html: r.html,
  shared: r.shared,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** email_templates (migrations/0042). */
export class TemplateRepository {
  constructor(private readonly sql: Sql) {}

  async list(userId: string, page: PageRequest): Promise<Page<TemplateRecord>> {
    const rows = await this.sql.select<TemplateRow>(`SELECT ${COLUMNS} FROM email_templates WHERE ${VISIBLE} ORDER BY lower(name), id LIMIT $limit OFFSET $offset`, {
      userId,
      limit: page.limit,
      offset: offsetOf(page),
    });
    const count = await this.sql.one<{ total: number }>(`SELECT count(*)::int AS total FROM email_templates WHERE ${VISIBLE}`, { userId });
    return { items: rows.map(toRecord), total: count?.total ?? 0 };
  }

  /** The template if the user may see it. */
  async findVisible(userId: string, id: string, tx?: Tx): Promise<TemplateRecord | undefined> {
    const row = await this.sql.one<TemplateRow>(`SELECT ${COLUMNS} FROM email_templates WHERE id = $id AND ${VISIBLE}`, { userId, id }, tx);
    return row && toRecord(row);
  }

  /** Locks the row for a change (FOR UPDATE), if the user may see it. */
  async lockVisible(userId: string, id: string, tx: Tx): Promise<TemplateRecord | undefined> {
    const row = await this.sql.one<TemplateRow>(`SELECT ${COLUMNS} FROM email_templates WHERE id = $id AND ${VISIBLE} FOR UPDATE`, { userId, id }, tx);
    return row && toRecord(row);
  }

  async insert(userId: string, f: TemplateFields, tx: Tx): Promise<TemplateRecord> {
    const row = await this.sql.one<TemplateRow>(
      `INSERT INTO email_templates (user_id, name, subject, text, html, shared) VALUES ($userId, $name, $subject, $text, $html, $shared) RETURNING ${COLUMNS}`,
      { userId, ...f },
      tx,
    );
    return toRecord(row!);
  }

  async update(id: string, f: TemplateFields, tx: Tx): Promise<TemplateRecord> {
    const row = await this.sql.one<TemplateRow>(
      `UPDATE email_templates SET name = $name, subject = $subject, text = $text, html = $html, shared = $shared, updated_at = now() WHERE id = $id RETURNING ${COLUMNS}`,
      { id, ...f },
      tx,
    );
    return toRecord(row!);
  }

  /**
   * One query for a render (the p50 < 5 ms target of issue 47): the contact only where the caller may
   * see it (right "view", as GET /api/contacts/:id), its company as the contacts area shows it (none for
   * an own domain or one the caller does not meet through mail; a nameless company by its domain), and the caller's own names.
   */
  placeholderSource(userId: string, contactId: string): Promise<PlaceholderSource | undefined> {
    return this.sql.one<PlaceholderSource>(
      `SELECT k.name AS contact_name,
              ${shownCompanyName('k.company_id')} AS company_name,
              u.first_name, u.last_name
         FROM contacts k JOIN users u ON u.id = $userId
        WHERE k.id = $contactId AND k.email_account_id IN (${accountsWith('view')})`,
      { userId, contactId },
    );
  }

  /** The same for a person the caller sees (GET /api/people/{id}: their name and company as shown there). */
  personPlaceholderSource(userId: string, personId: string): Promise<PlaceholderSource | undefined> {
    return this.sql.one<PlaceholderSource>(personPlaceholderQuery(), { userId, personId });
  }

  remove(id: string, tx: Tx): Promise<number> {
    return this.sql.execute('DELETE FROM email_templates WHERE id = $id', { id }, tx);
  }
}
