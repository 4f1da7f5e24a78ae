import type { Timesheet } from '../models/index.js';

/**
 * The timesheet of API responses. filePath is the internal storage key and never leaves the server;
 * fileType is the verified format ('pdf' | 'xlsx' | 'xls'), not a MIME type.
 */
export function presentTimesheet(timesheet: Timesheet) {
  return {
    id: timesheet.id,
    userId: timesheet.userId,
    fileName: timesheet.fileName,
    fileType: timesheet.fileType,
    fileSize: timesheet.fileSize,
    year: timesheet.year,
    month: timesheet.month,
    createdAt: timesheet.createdAt,
    updatedAt: timesheet.updatedAt,
  };
}

export type TimesheetView = ReturnType<typeof presentTimesheet>;
