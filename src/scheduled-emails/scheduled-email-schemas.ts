import { z } from 'zod';
import { paginationQuery } from '../shared/validation.js';

export const scheduledListQuery = paginationQuery.safeExtend({
  status: z
    .enum(['scheduled', 'sending', 'sent', 'failed', 'cancelled'], { error: 'Stav musí byť scheduled, sending, sent, failed alebo cancelled' })
    .optional()
    .meta({ description: 'Only those in this state' }),
});
