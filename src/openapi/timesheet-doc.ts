import { z } from 'zod';
import { idParams } from '../shared/validation.js';
import { CONTENT_TYPES } from '../timesheets/file-inspector.js';
import { timesheetData, timesheetSchema } from '../timesheets/timesheet-responses.js';
import { allListQuery, ownListQuery, uploadFieldsSchema } from '../timesheets/timesheet-schemas.js';
import type { AreaDoc } from './route-doc.js';
import { timesheetMonthRoutes } from './lifecycle-doc.js';

/** The form the upload route reads: its validated text fields plus the file part multer takes. */
const uploadForm = uploadFieldsSchema.extend({
  file: z.string().meta({ format: 'binary', description: 'PDF, XLSX or XLS (checked by content and extension), at most 10 MB' }),
});

export const timesheetArea: AreaDoc = {
  tag: 'timesheets',
  description: 'Timesheet files: docs/contract.md §4.2. Members reach their own, admins all.',
  routes: [
    {
      method: 'post',
      path: '/api/timesheets/upload',
      operationId: 'uploadTimesheet',
      auth: 'user',
      summary: 'Upload one timesheet (multipart: file, year, month)',
      body: uploadForm,
      multipart: true,
      description: 'Another type, or content that does not match the extension: 400. Over 10 MB: 413.',
      success: { status: 201, description: 'The stored timesheet', body: 'data', data: timesheetData },
      // 403 quota_exceeded (files or bytes per user), 429 upload rate, 507 the server's free-space reserve.
      errors: [403, 413, 429, 507],
    },
    {
      method: 'get',
      path: '/api/timesheets/my',
      operationId: 'listMyTimesheets',
      auth: 'user',
      summary: 'Own timesheets',
      query: ownListQuery,
      success: { status: 200, description: 'A page of own timesheets', body: 'list', item: timesheetSchema },
    },
    {
      method: 'get',
      path: '/api/timesheets/all',
      operationId: 'listAllTimesheets',
      auth: 'admin',
      summary: "Everyone's timesheets",
      query: allListQuery,
      success: { status: 200, description: 'A page of timesheets', body: 'list', item: timesheetSchema },
    },
    {
      method: 'get',
      path: '/api/timesheets/:id/download',
      operationId: 'downloadTimesheet',
      auth: 'user',
      summary: 'Download a timesheet file (owner or admin)',
      description: "Another member's timesheet is a 404, like a missing one (its existence is not disclosed).",
      params: idParams,
      success: {
        status: 200,
        description: 'The file as an attachment (Content-Disposition with an RFC 6266 file name)',
        body: 'file',
        mediaTypes: Object.values(CONTENT_TYPES),
      },
    },
    {
      method: 'delete',
      path: '/api/timesheets/:id',
      operationId: 'deleteTimesheet',
      auth: 'user',
      summary: 'Delete a timesheet (owner or admin)',
      description: "Another member's timesheet is a 404, like a missing one.",
      params: idParams,
      success: { status: 200, description: 'No data', body: 'message' },
    },
    ...timesheetMonthRoutes,
  ],
};
