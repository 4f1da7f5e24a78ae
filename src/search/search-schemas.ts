import { z } from 'zod';
import { searchText } from '../shared/validation.js';

/** GET /api/search: the text (required: an empty one is a 400) and how many of each kind at most. */
export const searchQuery = z.strictObject({
  q: searchText,
  limit: z.coerce
    .number({ error: 'Počet výsledkov musí byť číslo' })
    .int('Počet výsledkov musí byť celé číslo')
    .min(1, 'Počet výsledkov musí byť aspoň 1')
    .max(20, 'Počet výsledkov môže byť najviac 20')
    .default(5),
});
