import type { Request } from 'express';
import type { z } from 'zod';
import { UnsupportedMediaTypeError } from '../errors/app-errors.js';
import { parse } from '../shared/validation.js';

/**
 * The request parts through the shared validation (src/shared/validation.ts). A JSON endpoint given a
 * body of another type (a form post, text/plain, no Content-Type: curl -d's default) answers 415, not
 * a list of "missing" fields it could not have read. An empty body counts as none.
 */
export const parseBody = <S extends z.ZodType>(schema: S, req: Request): z.infer<S> => {
  if (hasBody(req) && !req.is('application/json')) throw new UnsupportedMediaTypeError();
  return parse(schema, req.body ?? {});
};
export const parseQuery = <S extends z.ZodType>(schema: S, req: Request): z.infer<S> => parse(schema, req.query);
export const parseParams = <S extends z.ZodType>(schema: S, req: Request): z.infer<S> => parse(schema, req.params);

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;
}
