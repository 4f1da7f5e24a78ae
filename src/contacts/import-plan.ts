/**
 * What an import changes (pure: test/unit/contact-import-plan.test.ts). The key of a contact is its
 * mailbox and address; a contact already there changes only where the file has a value that differs
 * (a blank cell never clears anything, tags are added to those it has, never removed), so importing
 * an export of the same mailbox changes nothing.
 *
 * The company column: a contact's company is the company of its address's domain (ADR 0117), shared
 * by everyone who sees it, so a file (whose addresses anyone may type) never names or renames one: a
 * value there is reported as one warning, the same whatever the company's state, so the answer tells
 * nothing about a company someone else works with (issue 52, finding 1). The rest of the row is imported.
 */
import type { ImportRow, RowProblem } from './import-records.js';
import { uniqueTags } from './import-rows.js';

/** A contact of the mailbox as the import compares it. */
export interface ExistingContact {
  id: string;
  email: string;
  name: string | null;
  phone: string | null;
  title: string | null;
  notes: string | null;
  tags: string[];
  /** Its company as the mailbox's members see it (name, else domain); null when it has none. */
  company: string | null;
}

export interface ContactValues {
  email: string;
  name: string | null;
  phone: string | null;
  title: string | null;
  notes: string | null;
  tags: string[];
}

export interface ImportPlan {
  creates: ContactValues[];
  updates: Array<ContactValues & { id: string }>;
  unchanged: number;
  warnings: RowProblem[];
}

const same = (a: string, b: string) => a.trim().toLocaleLowerCase('sk') === b.trim().toLocaleLowerCase('sk');

export function planImport(rows: readonly ImportRow[], existing: ReadonlyMap<string, ExistingContact>): ImportPlan {
  const plan: ImportPlan = { creates: [], updates: [], unchanged: 0, warnings: [] };
  for (const row of rows) {
    const current = existing.get(row.email);
    // What the caller already sees (their own contact's company, as an export writes it) is no change; anything
    // else is the one warning, whatever the company's state.
    if (row.company !== undefined && !(current?.company && same(row.company, current.company))) plan.warnings.push({ row: row.row, reason: COMPANY_NOT_IMPORTED });
    if (!current) {
      plan.creates.push({
        email: row.email,
        name: row.name ?? null,
        phone: row.phone ?? null,
        title: row.title ?? null,
        notes: row.notes ?? null,
        tags: row.tags ?? [],
      });
      continue;
    }
    const next: ContactValues & { id: string } = { ...current };
    let changed = false;
    for (const key of ['name', 'phone', 'title', 'notes'] as const) {
      const value = row[key];
      if (value !== undefined && value !== current[key]) {
        next[key] = value;
        changed = true;
      }
    }
    if (row.tags) {
      const merged = uniqueTags([...current.tags, ...row.tags]);
      if (merged.length !== current.tags.length) {
        next.tags = merged;
        changed = true;
      }
    }
    if (changed) plan.updates.push(next);
    else plan.unchanged++;
  }
  return plan;
}

/** The one warning of a row with a company value: the company is the domain's, named on its own page. */
export const COMPANY_NOT_IMPORTED = 'Stĺpec firmy sa neimportuje: firmu určuje doména adresy a jej názov sa mení na stránke firmy';
