import { terminalSafe } from './format.js';

export interface Column<T> {
  header: string;
  get: (row: T) => unknown;
  /** Longer cells are cut with an ellipsis so one long value does not wrap the whole table. */
  maxWidth?: number;
}

/** A plain padded table for terminals (oclif 4 dropped ux.table); --json is the format for scripts. */
export function renderTable<T>(rows: T[], columns: Column<T>[]): string {
  const cells = rows.map((row) => columns.map((c) => clip(cellText(c.get(row)), c.maxWidth)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i].length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header.toUpperCase())), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (value instanceof Date) return value.toISOString().replace(/\.\d{3}Z$/, 'Z');
  // Control characters from stored data must not move the cursor, recolour, reorder or fake extra rows.
  if (typeof value === 'string') return terminalSafe(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return terminalSafe(JSON.stringify(value) ?? '');
}

function clip(text: string, max?: number): string {
  return max && text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
