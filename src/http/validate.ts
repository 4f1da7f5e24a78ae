import type { Request } from 'express';
import type { z } from 'zod';
import { parse } from '../shared/validation.js';

/** The request parts through the shared validation (src/shared/validation.ts). */
export const parseBody = <S extends z.ZodType>(schema: S, req: Request): z.infer<S> => parse(schema, req.body ?? {});
export const parseQuery = <S extends z.ZodType>(schema: S, req: Request): z.infer<S> => parse(schema, req.query);
export const parseParams = <S extends z.ZodType>(schema: S, req: Request): z.infer<S> => parse(schema, req.params);
