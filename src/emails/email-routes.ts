import { Router, type Request, type Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { create as contentDisposition } from 'content-disposition';
import type { AuthMiddleware } from '../auth/auth-middleware.js';
import type { ExpensiveRequests } from '../http/expensive-requests.js';
import { requireAuthContext } from '../http/auth-context.js';
import { ok } from '../http/respond.js';
import { parseBody, parseParams, parseQuery } from '../http/validate.js';
import { idParams } from '../shared/validation.js';
import { listResult } from '../shared/pagination.js';
import { presentAwaitingReply, presentEmail, presentEmailSummary } from './email-presenter.js';
import type { EmailData, MarkReadData } from './email-responses.js';
import { attachmentParams, awaitingReplyQuery, contactIdParams, emailDetailQuery, listEmailsQuery, threadQuery, updateEmailBody } from './email-schemas.js';
import type { EmailRecord } from './email-records.js';
import type { HtmlBodies } from './html-bodies.js';
import type { EmailService } from './email-service.js';
import type { AttachmentDownloads, AttachmentStream } from './attachment-download.js';
import { asciiFallbackName, sanitiseFileName } from '../timesheets/file-name.js';

/** /api/emails: the caller's own emails only (docs/contract.md §1: admins are no exception). */
export function createEmailRouter(
  services: { emails: EmailService; emailAttachments: AttachmentDownloads; emailHtml: HtmlBodies },
  auth: AuthMiddleware,
  expensive: ExpensiveRequests,
  options: { corsOrigins?: readonly string[] } = {},
): Router {
  const { emails, emailAttachments, emailHtml } = services;
  const embedders = new Set(options.corsOrigins ?? []);
  const router = Router();
  router.use(auth.requireAuth);

  /** The HTML bodies from the mail server, their inline images pointing at this service's download URL. */
  // `waiting`: a read-state change waits for the user's render place (never a 429; html-bodies.ts).
  const withHtml = async (req: Request, list: EmailRecord[], remoteImages = false, waiting = false) => {
    const origin = `${req.protocol}://${req.host}`;
    const options = { remoteImages, attachmentUrl: (emailId: string, attachmentId: string) => `${origin}/api/emails/${emailId}/attachments/${attachmentId}` };
    const userId = requireAuthContext(req).userId;
    await (waiting ? emailHtml.fillWaiting(userId, list, options) : emailHtml.fill(userId, list, options));
    return list;
  };

  router.get('/', expensive.whenSearching, async (req, res) => {
    const { page, limit, to, ...filter } = parseQuery(listEmailsQuery, req);
    const { items, total, totalExact, hasNext } = await emails.list(requireAuthContext(req).userId, { ...filter, before: to }, { page, limit });
    ok(res, listResult(items.map(presentEmailSummary), { page, limit }, { total, totalExact, hasNext }), 'Zoznam emailov');
  });

  // Before /:id routes so "awaiting-reply" is never taken for an email id.
  router.get('/awaiting-reply', async (req, res) => {
    const { page, limit, emailAccountId, olderThanHours } = parseQuery(awaitingReplyQuery, req);
    const { items, total, totalExact, hasNext } = await emails.awaitingReply(requireAuthContext(req).userId, { emailAccountId, olderThanHours }, { page, limit });
    ok(res, listResult(items.map(presentAwaitingReply), { page, limit }, { total, totalExact, hasNext }), 'Konverzácie čakajúce na odpoveď');
  });

  // Before /:id routes so "contact" is never taken for an email id.
  router.post('/contact/:contactId/read', async (req, res) => {
    const { contactId } = parseParams(contactIdParams, req);
    const { updated, pushed, pending } = await emails.markContactRead(requireAuthContext(req).userId, contactId);
    ok(res, { updated, pushed, pending } satisfies MarkReadData, 'Emaily kontaktu boli označené ako prečítané');
  });

  router.get('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { remoteImages } = parseQuery(emailDetailQuery, req);
    const email = await emails.get(requireAuthContext(req).userId, id);
    await withHtml(req, [email], remoteImages);
    ok(res, { email: presentEmail(email) } satisfies EmailData, 'Email');
  });

  router.get('/:id/thread', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { page, limit, remoteImages } = parseQuery(threadQuery, req);
    const { items, total } = await emails.thread(requireAuthContext(req).userId, id, { page, limit });
    await withHtml(req, items, remoteImages);
    ok(res, listResult(items.map(presentEmail), { page, limit }, total), 'Vlákno emailov');
  });

  // Streamed from the mail server as it arrives: never buffered whole, never stored.
  router.get('/:id/attachments/:attachmentId', async (req, res) => {
    const { id, attachmentId } = parseParams(attachmentParams, req);
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const download = await emailAttachments.open(requireAuthContext(req).userId, id, attachmentId, gone.signal);
    await sendAttachment(download, res, resourcePolicy(req, embedders));
  });

  router.patch('/:id', async (req, res) => {
    const { id } = parseParams(idParams, req);
    const { isRead } = parseBody(updateEmailBody, req);
    const email = await emails.setRead(requireAuthContext(req).userId, id, isRead);
    await withHtml(req, [email], false, true);
    ok(res, { email: presentEmail(email) } satisfies EmailData, isRead ? 'Email bol označený ako prečítaný' : 'Email bol označený ako neprečítaný');
  });

  return router;
}

/**
 * Cross-Origin-Resource-Policy per request: `cross-origin` when the page that embeds the file is one
 * of CORS_ORIGIN (its origin in Referer: an <img> sends no Origin), else `same-site`. Chromium does
 * not count two ports of one IP address as one site, and the app may live on another site than the
 * API. Another site gains nothing by it: its request carries no SameSite cookie, so it gets a 401.
 */
function resourcePolicy(req: Request, embedders: ReadonlySet<string>): string {
  const referer = req.get('referer');
  if (!referer || embedders.size === 0) return 'same-site';
  try {
    return embedders.has(new URL(referer).origin) ? 'cross-origin' : 'same-site';
  } catch {
    return 'same-site';
  }
}

/** A media type we pass on as is; anything odd is served as plain bytes. */
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** Raster images a browser only ever decodes (never SVG: it can carry script): these may show inline. */
const INLINE_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);

/**
 * Content-Disposition attachment with an RFC 6266 name, so that a click downloads; only the raster
 * images above are `inline` (the HTML body shows them with <img>). Either way nosniff and the API's
 * CSP: even an HTML or SVG attachment cannot run in the CRM's origin. Cross-Origin-Resource-Policy
 * (helmet's default is same-origin) lets the web app embed the images (resourcePolicy).
 */
async function sendAttachment({ attachment, body, size, idleTimeoutMs }: AttachmentStream, res: Response, policy: string): Promise<void> {
  const name = sanitiseFileName(attachment.name ?? '') || 'priloha';
  const type = MEDIA_TYPE.test(attachment.type) ? attachment.type : 'application/octet-stream';
  // A client that stops reading stalls the socket: after the idle time it is cut off, and the
  // pipeline destroys the mail server's transfer with it (issue 26).
  res.setTimeout(idleTimeoutMs, () => res.destroy());
  res.status(200);
  res.setHeader('Content-Type', type);
  if (size !== undefined) res.setHeader('Content-Length', String(size));
  const disposition = INLINE_IMAGE_TYPES.has(type) ? 'inline' : 'attachment';
  res.setHeader('Content-Disposition', contentDisposition(name, { type: disposition, fallback: asciiFallbackName(name) }));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cross-Origin-Resource-Policy', policy);
  res.setHeader('Cache-Control', 'private, no-store');
  try {
    await pipeline(body, res);
  } catch (err) {
    // The reader went away (or the mail server broke off mid-transfer after the headers went out):
    // nothing more can be said to this client; the connection is closed either way.
    if (res.headersSent) {
      res.destroy();
      return;
    }
    throw err;
  }
}
