import { Router } from 'express';
import { create as contentDisposition } from 'content-disposition';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import type { ExpensiveRequests } from '../http/expensive-requests.js';
import { requestMeta } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseQuery } from '../http/validate.js';
import type { TimesheetMonth } from './timesheet-month.js';
import type { MonthReportData } from './timesheet-responses.js';
import { monthQuery } from './timesheet-schemas.js';
import { streamOut } from '../http/stream-out.js';

/** The archive's name: timesheets-2026-03.zip. */
export function exportFileName(year: number, month: number): string {
  return `timesheets-${year}-${String(month).padStart(2, '0')}.zip`;
}

/** /api/admin/timesheets: the month's report and its files as one zip, for admins only. */
export function createTimesheetAdminRouter(services: { timesheetMonth: TimesheetMonth }, auth: AuthMiddleware, expensive: ExpensiveRequests): Router {
  const router = Router();
  router.use(auth.requireAuth, auth.requireRole('admin'));

  router.get('/report', async (req, res) => {
    const { year, month } = parseQuery(monthQuery, req);
    const report = await services.timesheetMonth.report(year, month);
    ok(res, report satisfies MonthReportData, 'Prehľad výkazov za mesiac');
  });

  router.get('/export', expensive.always, async (req, res) => {
    const { year, month } = parseQuery(monthQuery, req);
    const archive = await services.timesheetMonth.export(year, month, requestMeta(req));
    res.status(200);
    res.setHeader('Content-Type', 'application/zip');
    if (archive.size !== undefined) res.setHeader('Content-Length', String(archive.size));
    res.setHeader('Content-Disposition', contentDisposition(exportFileName(year, month), { type: 'attachment' }));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'private, no-store');
    await streamOut(archive.stream, res);
  });

  return router;
}
