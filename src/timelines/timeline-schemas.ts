import { z } from 'zod';
import { paginationQuery } from '../shared/validation.js';

const BOTH = 'Uveďte page alebo cursor, nie oboje';
/** How deep page numbers reach: each such page reads every item before it again (a cursor page costs the same at any depth). */
export const MAX_TIMELINE_OFFSET = 5000;
const TOO_DEEP = `Stránkovanie číslom strany siaha do hĺbky ${MAX_TIMELINE_OFFSET} položiek; ďalej pokračujte cez cursor (nextCursor)`;

/**
 * GET /api/people/{id}/timeline, GET /api/companies/{id}/timeline: page and limit as every list, or
 * the cursor of the page before (then page stays 1). Strict like every list query.
 */
export const timelineQuery = paginationQuery
  .extend({
    cursor: z
      .string({ error: 'cursor musí byť text' })
      .min(1, 'cursor je prázdny')
      .max(200, 'cursor je príliš dlhý')
      .optional()
      .meta({ description: 'nextCursor of the page before: the next page at the cost of the first, however deep (page must then be absent or 1)' }),
  })
  .refine((q) => q.cursor === undefined || q.page === 1, { message: BOTH, path: ['cursor'] })
  .refine((q) => (q.page - 1) * q.limit <= MAX_TIMELINE_OFFSET, { message: TOO_DEEP, path: ['page'] });
