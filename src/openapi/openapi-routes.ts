import type { RequestHandler } from 'express';
import { buildOpenApiDocument, type OpenApiOptions } from './document.js';

/** GET /api/openapi.json: public, built on first request and kept (the routes do not change at run time). */
export function openApiHandler(options: OpenApiOptions): RequestHandler {
  let body: string | undefined;
  return (_req, res) => {
    body ??= JSON.stringify(buildOpenApiDocument(options));
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.send(body);
  };
}
