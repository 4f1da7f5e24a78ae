/** The shapes of an address book import (POST /api/contacts/import): what the file has, and the answer. */

export type ImportFormat = 'csv' | 'vcf';

/** One record as the file has it, before validation; a field absent or blank is undefined. */
export interface RawContact {
  /** Where a spreadsheet shows it (CSV: the header is row 1), or the card's position in a vCard file (the first is 1). */
  row: number;
  name?: string;
  email?: string;
  phone?: string;
  company?: string;
  title?: string;
  tags?: string[];
  notes?: string;
}

/** A record that passed validation: the address lower-cased, every value trimmed, absent = not in the file. */
export interface ImportRow {
  row: number;
  email: string;
  name?: string;
  phone?: string;
  company?: string;
  title?: string;
  tags?: string[];
  notes?: string;
}

export interface RowProblem {
  row: number;
  reason: string;
}

/** What an import did (or, for a dry run, would do). */
export interface ImportResult {
  dryRun: boolean;
  format: ImportFormat;
  created: number;
  updated: number;
  unchanged: number;
  /** Rows left out, with the first problem of each. */
  invalid: RowProblem[];
  /** Rows imported with a value that was not applied (a company name the contact's company cannot take). */
  warnings: RowProblem[];
}
