import type { Timesheet } from '../models/index.js';
import type { TimesheetFileKind } from './file-inspector.js';
import type { TimesheetResponse } from './timesheet-responses.js';

/**
 * The timesheet of API responses. filePath is the internal storage key and never leaves the server;
 * fileType is the verified format ('pdf' | 'xlsx' | 'xls'), not a MIME type.
 */
export function presentTimesheet(timesheet: Timesheet): TimesheetResponse {
  return {
    id: timesheet.id,
    userId: timesheet.userId,
    fileName: timesheet.fileName,
    // The column holds only what the file inspector verified (upload is the one writer).
    fileType: timesheet.fileType as TimesheetFileKind,
    fileSize: timesheet.fileSize,
    year: timesheet.year,
    month: timesheet.month,
    createdAt: timesheet.createdAt,
    updatedAt: timesheet.updatedAt,
  };
}
