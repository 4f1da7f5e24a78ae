import { z } from 'zod';
import { timestamp, uuid } from '../shared/response-fields.js';

/** A timesheet of responses (docs/contract.md §4.2); the storage path stays internal. */
export const timesheetSchema = z
  .object({
    id: uuid,
    userId: uuid,
    fileName: z.string().meta({ description: "The uploader's file name (sanitised); the download uses it" }),
    fileType: z.enum(['pdf', 'xlsx', 'xls']).meta({ description: 'The verified format, not a MIME type' }),
    fileSize: z.number().int().min(0).meta({ description: 'Bytes' }),
    year: z.number().int(),
    month: z.number().int().min(1).max(12),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Timesheet' });

/** data of POST /api/timesheets/upload. */
export const timesheetData = z.object({ timesheet: timesheetSchema });

export type TimesheetResponse = z.input<typeof timesheetSchema>;
export type TimesheetData = z.input<typeof timesheetData>;
