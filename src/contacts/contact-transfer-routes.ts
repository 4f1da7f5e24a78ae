import { Router, type Request, type Response } from 'express';
import multer, { MulterError } from 'multer';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import type { ExpensiveRequests } from '../http/expensive-requests.js';
import { ValidationError } from '../errors/app-errors.js';
import { requestMeta, requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseQuery } from '../http/validate.js';
import { parse } from '../shared/validation.js';
import { toUploadError } from '../timesheets/upload-middleware.js';
import type { ContactExportService } from './contact-export-service.js';
import type { ContactImportService } from './contact-import-service.js';
import type { ImportResultData } from './contact-responses.js';
import { exportContactsQuery, importFieldsSchema } from './contact-schemas.js';
import { IMPORT_MAX_BYTES } from './import-file.js';

const TOO_LARGE = `Súbor je väčší ako ${IMPORT_MAX_BYTES / 1024 / 1024} MB`;
const NO_FILE = 'Priložte súbor v poli "file" (CSV alebo vCard)';

/** One file of at most IMPORT_MAX_BYTES (one byte more tells "too large") and two short fields, held in memory. */
const upload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: IMPORT_MAX_BYTES + 1, files: 1, fields: 4, parts: 6, fieldNameSize: 32, fieldSize: 64, headerPairs: 20 },
  defParamCharset: 'utf8',
}).single('file');

function readForm(req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    upload(req, res, (err?: unknown) => {
      if (err === undefined) resolve();
      // The limit of the brief and the CLI alike: a 400 with the limit, as for a file that is no address book.
      else if (err instanceof MulterError && err.code === 'LIMIT_FILE_SIZE') reject(new ValidationError(TOO_LARGE, [{ field: 'file', message: TOO_LARGE }]));
      else reject(toUploadError(err));
    });
  });
}

/**
 * /api/contacts/import and /api/contacts/export: a mailbox's address book in and out (issue 46).
 * Mounted before the contacts router, whose /:id would take these paths for ids.
 */
export function createContactTransferRouter(
  services: { contactImport: ContactImportService; contactExport: ContactExportService },
  auth: AuthMiddleware,
  expensive: ExpensiveRequests,
): Router {
  const router = Router();

  router.post('/import', auth.requireAuth, async (req, res) => {
    await readForm(req, res);
    const fields = parse(importFieldsSchema, req.body ?? {}, 'Neplatné údaje importu');
    const file = req.file?.buffer;
    if (!file) throw new ValidationError(NO_FILE, [{ field: 'file', message: NO_FILE }]);
    const result = await services.contactImport.import(requireAuthContext(req).userId, { ...fields, file }, requestMeta(req));
    const message = result.dryRun ? 'Skúšobný import: nič sa neuložilo' : 'Kontakty boli importované';
    ok(res, { import: result } satisfies ImportResultData, message);
  });

  router.get('/export', auth.requireAuth, expensive.always, async (req, res) => {
    const query = parseQuery(exportContactsQuery, req);
    const userId = requireAuthContext(req).userId;
    // Refusals (404, 403) answer in the envelope, before the file starts.
    await services.contactExport.requireExport(userId, query.emailAccountId);
    const csv = query.format === 'csv';
    res.status(200);
    res.setHeader('Content-Type', csv ? 'text/csv; charset=utf-8' : 'text/vcard; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="kontakty-${new Date().toISOString().slice(0, 10)}.${query.format}"`);
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    try {
      await services.contactExport.export(userId, query, res, requestMeta(req));
      res.end();
    } catch (err) {
      // After the first byte nothing can be said in the envelope: the connection is cut, never a short file that looks whole.
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.removeHeader('Content-Disposition');
      res.removeHeader('Content-Type');
      throw err;
    }
  });

  return router;
}
