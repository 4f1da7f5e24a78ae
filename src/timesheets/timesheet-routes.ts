import { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { create as contentDisposition } from 'content-disposition';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import { ValidationError } from '../errors/app-errors.js';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseParams, parseQuery } from '../http/validate.js';
import { idParams, parse } from '../shared/validation.js';
import { listResult } from '../shared/pagination.js';
import { asciiFallbackName } from './file-name.js';
import { presentTimesheet } from './timesheet-presenter.js';
import type { TimesheetData } from './timesheet-responses.js';
import { allListQuery, ownListQuery, uploadFieldsSchema } from './timesheet-schemas.js';
import type { TimesheetActor, TimesheetService } from './timesheet-service.js';
import { createUploadMiddleware } from './upload-middleware.js';
import { streamOut } from '../http/stream-out.js';

const MISSING_FILE = 'Súbor chýba (pole "file")';

function actorOf(req: Request): TimesheetActor {
  const { userId, username, role } = requireAuthContext(req);
  return { userId, username, role };
}

export function createTimesheetRouter(services: { timesheets: TimesheetService }, auth: AuthMiddleware): Router {
  const { timesheets } = services;
  const router = Router();
  // Authentication first: an anonymous request never gets a byte onto the disk; then quota, rate and
  // free space, before the body is read.
  const allowance = uploadAllowance(timesheets);
  router.post(
    '/upload',
    auth.requireAuth,
    allowance.admit,
    createUploadMiddleware(timesheets),
    async (req: Request, res: Response) => {
      const file = req.file;
      if (!file) throw new ValidationError(MISSING_FILE, [{ field: 'file', message: MISSING_FILE }]);
      let fields;
      try {
        fields = parse(uploadFieldsSchema, req.body, 'Neplatné údaje výkazu');
      } catch (err) {
        await timesheets.discard(file.filename);
        throw err;
      }
      const timesheet = await timesheets.upload(actorOf(req), { file: { key: file.filename, size: file.size, originalName: file.originalname }, ...fields }, requestMeta(req));
      ok(res, { timesheet: presentTimesheet(timesheet) } satisfies TimesheetData, 'Výkaz bol úspešne nahraný', 201);
    },
    allowance.releaseOnError,
  );

  router.get('/my', auth.requireAuth, async (req, res) => {
    const { page, limit, ...filter } = parseQuery(ownListQuery, req);
    const { items, total } = await timesheets.listOwn(actorOf(req), filter, { page, limit });
    ok(res, listResult(items.map(presentTimesheet), { page, limit }, total), 'Zoznam výkazov');
  });

  router.get('/all', auth.requireAuth, auth.requireRole('admin'), async (req, res) => {
    const { page, limit, ...filter } = parseQuery(allListQuery, req);
    const { items, total } = await timesheets.listAll(actorOf(req), filter, { page, limit });
    ok(res, listResult(items.map(presentTimesheet), { page, limit }, total), 'Zoznam výkazov');
  });

  router.get('/:id/download', auth.requireAuth, async (req, res) => {
    const { id } = parseParams(idParams, req);
    const download = await timesheets.openDownload(actorOf(req), id);
    const { fileName } = download.timesheet;
    res.status(200);
    res.setHeader('Content-Type', download.contentType);
    res.setHeader('Content-Length', String(download.size));
    res.setHeader('Content-Disposition', contentDisposition(fileName, { type: 'attachment', fallback: asciiFallbackName(fileName) }));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'private, no-store');
    await streamOut(download.stream, res);
  });

  router.delete('/:id', auth.requireAuth, async (req, res) => {
    const { id } = parseParams(idParams, req);
    await timesheets.delete(actorOf(req), id, requestMeta(req));
    ok(res, undefined, 'Výkaz bol vymazaný');
  });

  return router;
}

/**
 * Admits an upload (TimesheetService.admitUpload) before the body is read. An admitted upload that
 * ends in an error gives its point of the upload rate back before the error is answered: only stored
 * files count.
 */
function uploadAllowance(timesheets: TimesheetService): { admit: RequestHandler; releaseOnError: ErrorRequestHandler } {
  const admitted = new WeakSet<Request>();
  return {
    admit: async (req, _res, next) => {
      await timesheets.admitUpload(actorOf(req));
      admitted.add(req);
      next();
    },
    releaseOnError: async (err: unknown, req, _res, next) => {
      if (admitted.delete(req)) await timesheets.releaseUpload(actorOf(req)).catch(() => undefined);
      next(err);
    },
  };
}
