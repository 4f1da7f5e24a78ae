/**
 * What an import changes (pure: test/unit/contact-import-plan.test.ts). The key of a contact is its
 * mailbox and address; a contact already there changes only where the file has a value that differs
 * (a blank cell never clears anything, tags are added to those it has, never removed), so importing
 * an export of the same mailbox changes nothing.
 *
 * The company column: a contact's company is the company of its address's domain (ADR 0117), shared
 * by everyone who sees it. The file may name that company while nobody has (the API shows its domain
 * until then); it never renames a named one, and a free-mail or own-domain address has no company:
 * those values are reported as warnings, the rest of the row is imported.
 */
import { companyDomainOf } from '../companies/free-mail-domains.js';
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
}

/** A company row of a domain: its name (null: unnamed) and whether the domain is one of the staff's own. */
export interface DomainCompany {
  domain: string;
  name: string | null;
  ownDomain: boolean;
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
  /** Unnamed companies the file names, by domain. */
  companyNames: Map<string, string>;
  warnings: RowProblem[];
}

const same = (a: string, b: string) => a.trim().toLocaleLowerCase('sk') === b.trim().toLocaleLowerCase('sk');

export function planImport(rows: readonly ImportRow[], existing: ReadonlyMap<string, ExistingContact>, companies: ReadonlyMap<string, DomainCompany>): ImportPlan {
  const plan: ImportPlan = { creates: [], updates: [], unchanged: 0, companyNames: new Map(), warnings: [] };
  const namedAt = new Map<string, number>();
  for (const row of rows) {
    const namesCompany = row.company !== undefined && companyChange(row, companies, plan, namedAt);
    const current = existing.get(row.email);
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
    let changed = namesCompany;
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

/** Whether the row names its (unnamed) company; a value that cannot apply becomes a warning. */
function companyChange(row: ImportRow, companies: ReadonlyMap<string, DomainCompany>, plan: ImportPlan, namedAt: Map<string, number>): boolean {
  const value = row.company!;
  const domain = companyDomainOf(row.email);
  const warn = (reason: string) => {
    plan.warnings.push({ row: row.row, reason });
    return false;
  };
  if (!domain) return warn(`Firma „${value}“ sa nepriradila: adresa je z verejnej emailovej služby, nepatrí žiadnej firme`);
  // A domain with no company row yet gets one, unnamed (company-assignment.ts).
  const company = companies.get(domain) ?? { domain, name: null, ownDomain: false };
  if (company.ownDomain) return warn(`Firma „${value}“ sa nepriradila: ${domain} je doména vašej organizácie`);
  const pending = plan.companyNames.get(domain);
  const shown = pending ?? company.name ?? domain;
  if (same(value, shown)) return false;
  if (pending !== undefined) return warn(`Firma domény ${domain} už dostala názov „${pending}“ v riadku ${namedAt.get(domain)}`);
  if (company.name !== null) return warn(`Firma domény ${domain} sa volá „${company.name}“; import firmy nepremenúva`);
  plan.companyNames.set(domain, value);
  namedAt.set(domain, row.row);
  return true;
}
