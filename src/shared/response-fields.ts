import { z } from 'zod';

/**
 * Building blocks of the response schemas (src/<area>/*-responses.ts). A response schema describes
 * both sides of one boundary: its *input* type is what a presenter returns (Dates), its *output* is
 * the JSON on the wire (ISO strings), which is what the OpenAPI document shows. Presenters are typed
 * `z.input<typeof schema>`, so a presenter that drifts from the document does not compile.
 */

/** A Date in the presenter, an ISO 8601 UTC timestamp in the JSON (Date#toJSON). */
export const timestamp = z
  .date()
  .transform((d) => d.toISOString())
  .pipe(z.iso.datetime())
  .meta({ example: '2026-03-01T08:30:00.000Z' });

export const nullableTimestamp = timestamp.nullable();

export const uuid = z.uuid();

/** The list shape of every paged response: data.items + data.pagination (docs/contract.md §4). */
export const pagination = z
  .object({
    page: z.number().int().min(1),
    limit: z.number().int().min(1).max(100),
    total: z.number().int().min(0).meta({ description: 'Rows of all pages; for emails and contacts at most 10,000 (see totalExact)' }),
    totalExact: z.boolean().meta({ description: 'False when the count stopped at 10,000 rows: total is then that bound, and more pages may follow' }),
    hasNext: z.boolean().meta({ description: 'Whether another page follows this one: exact at any size, also past the 10,000-row count (page on while true)' }),
  })
  .meta({ id: 'Pagination', description: 'page from 1; limit default 50, at most 100; total of all pages (bounded for emails and contacts)' });

export function listOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), pagination });
}
