import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import type { Request, RequestHandler, Response } from 'express';
import { ERROR_CODES } from '../../src/errors/error-codes.js';
import { buildOpenApiDocument } from '../../src/openapi/document.js';

/**
 * The suite's check of every response against the OpenAPI document (docs/adr/0029-frontend-contract-checked-openapi.md:
 * the frontend contract): installed by testApp() as the app's first middleware, it sees each response as it ends
 * and checks that its status is documented for the operation, that the documented required headers
 * are there, and that a JSON body is valid against the documented schema (ajv, JSON Schema 2020-12,
 * the dialect of OpenAPI 3.1). Problems are collected; test/support/openapi-hooks.ts fails the test
 * that caused them. Which operations answered is counted for the coverage line of the run.
 */

type Json = Record<string, unknown>;

interface ResponseDoc {
  headers?: Record<string, { required?: boolean }>;
  content?: Record<string, { schema?: unknown }>;
}

interface Operation {
  /** "GET /api/contacts/{id}" */
  key: string;
  operationId: string;
  method: string;
  pattern: RegExp;
  /** Fewer parameters first: /api/timesheets/my wins over /api/timesheets/{id}. */
  params: number;
  successStatus: string;
  responses: Record<string, { doc: ResponseDoc; pointer: string }>;
}

export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  headers: Record<string, unknown>;
  /** The raw body when it was JSON (undefined for HEAD, files and text). */
  body?: Buffer;
}

export interface Violation {
  request: string;
  problems: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
// ajv-formats is CommonJS whose types describe an ES default export: take whichever the loader gave.
const addFormats = ((formatsPlugin as unknown as { default?: typeof formatsPlugin.default }).default ?? formatsPlugin) as unknown as typeof formatsPlugin.default;
const DOC_ID = 'openapi.json';

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function mediaEssence(type: unknown): string {
  return (typeof type === 'string' ? type : '').split(';')[0].trim().toLowerCase();
}

export class ResponseContract {
  private readonly ajv: Ajv2020;
  private readonly operations: Operation[] = [];
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly errorEnvelope: string;
  /** operationId -> statuses seen, for the coverage line. */
  readonly seen = new Map<string, Set<string>>();
  readonly violations: Violation[] = [];

  constructor(readonly doc: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema(doc, DOC_ID);
    this.errorEnvelope = `${DOC_ID}#/components/schemas/ErrorEnvelope`;
    const components = ((doc.components as Json | undefined)?.responses ?? {}) as Record<string, ResponseDoc>;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const method of METHODS) {
        const op = item[method] as { operationId: string; responses: Record<string, Json> } | undefined;
        if (!op) continue;
        const responses: Operation['responses'] = {};
        for (const [status, response] of Object.entries(op.responses)) {
          const ref = response.$ref as string | undefined;
          const name = ref?.replace('#/components/responses/', '');
          responses[status] = ref
            ? { doc: components[name!], pointer: `/components/responses/${escapePointer(name!)}` }
            : { doc: response, pointer: `/paths/${escapePointer(path)}/${method}/responses/${status}` };
        }
        const params = (path.match(/\{[^}]+\}/g) ?? []).length;
        const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`);
        this.operations.push({
          key: `${method.toUpperCase()} ${path}`,
          operationId: op.operationId,
          method,
          pattern,
          params,
          successStatus: Object.keys(op.responses).find((s) => s.startsWith('2'))!,
          responses,
        });
      }
    }
    this.operations.sort((a, b) => a.params - b.params);
  }

  /** operationId -> its documented success status. */
  successStatuses(): Map<string, string> {
    return new Map(this.operations.map((o) => [o.operationId, o.successStatus]));
  }

  /**
   * The operation of this method on the path's template. A concrete path wins over a templated one
   * (OpenAPI: /timesheets/my before /timesheets/{id}), whatever methods each has: a method the
   * concrete path lacks has no operation (the service answers 405), even where the template has it.
   */
  private find(method: string, path: string): Operation | undefined {
    const m = method === 'head' ? 'get' : method;
    const matching = this.operations.filter((o) => o.pattern.test(path));
    if (matching.length === 0) return undefined;
    const fewest = Math.min(...matching.map((o) => o.params));
    return matching.find((o) => o.params === fewest && o.method === m);
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.getSchema(pointer.startsWith(DOC_ID) ? pointer : `${DOC_ID}#${pointer}`);
      if (!validate) throw new Error(`no schema at ${pointer}`);
      this.validators.set(pointer, validate);
    }
    return validate;
  }

  private static describe(errors: ErrorObject[] | null | undefined): string[] {
    return (errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  }

  /** The problems of one response against the document (empty when it conforms). */
  check(res: ObservedResponse): string[] {
    const problems: string[] = [];
    const method = res.method.toLowerCase();
    const type = mediaEssence(res.headers['content-type']);
    if (!res.headers['x-request-id']) problems.push('header X-Request-Id missing');
    const op = this.find(method, res.path);
    const json = type === 'application/json' && res.body !== undefined && res.body.length > 0 ? this.parse(res.body, problems) : undefined;
    if (!op) return this.checkWithoutOperation(res, json, problems);
    const status = String(res.status);
    this.seen.set(op.operationId, (this.seen.get(op.operationId) ?? new Set<string>()).add(status));
    const response = op.responses[status];
    if (!response) {
      problems.push(`status ${status} is not documented for ${op.key} (documented: ${Object.keys(op.responses).join(', ')})`);
      return problems;
    }
    for (const [name, header] of Object.entries(response.doc.headers ?? {})) {
      if (header.required && res.headers[name.toLowerCase()] === undefined) problems.push(`header ${name} missing (documented as required)`);
    }
    if (method !== 'head') this.checkContent({ res, op, response, type, json }, problems);
    return problems;
  }

  /** Unknown paths and methods (404, 405), CORS preflights: no operation, but errors keep the envelope. */
  private checkWithoutOperation(res: ObservedResponse, json: { value: unknown } | undefined, problems: string[]): string[] {
    const method = res.method.toLowerCase();
    if (res.status >= 400 && method !== 'head' && method !== 'options') this.checkError(json, res.status, this.errorEnvelope, problems);
    return problems;
  }

  /** A documented response's Content-Type, and its JSON body against the schema of that type. */
  private checkContent(
    given: { res: ObservedResponse; op: Operation; response: Operation['responses'][string]; type: string; json?: { value: unknown } },
    problems: string[],
  ): void {
    const { res, op, response, type, json } = given;
    // A documented empty answer (204): no content to check, and none may come.
    if (res.status === 204 && response.doc.content === undefined) {
      if (res.body !== undefined && res.body.length > 0) problems.push('a 204 with a body');
      return;
    }
    const content = response.doc.content ?? {};
    // Exact type first, then a documented range (an attachment download carries the type its email declared: */*).
    const mediaType =
      Object.keys(content).find((t) => mediaEssence(t) === type) ?? Object.keys(content).find((t) => t === '*/*' || (t.endsWith('/*') && type.startsWith(t.slice(0, -1))));
    if (!mediaType) {
      problems.push(`Content-Type ${type || '(none)'} is not documented for ${op.key} ${res.status} (documented: ${Object.keys(content).join(', ')})`);
      return;
    }
    if (type !== 'application/json') return;
    const pointer = `${response.pointer}/content/${escapePointer(mediaType)}/schema`;
    if (res.status >= 400) {
      this.checkError(json, res.status, pointer, problems);
    } else if (json === undefined) {
      problems.push('empty JSON body');
    } else {
      const validate = this.validator(pointer);
      if (!validate(json.value)) problems.push(...ResponseContract.describe(validate.errors));
    }
  }

  private parse(body: Buffer, problems: string[]): { value: unknown } | undefined {
    try {
      return { value: JSON.parse(body.toString('utf8')) as unknown };
    } catch {
      problems.push('body is not valid JSON');
      return undefined;
    }
  }

  /** The error envelope, its statusCode equal to the HTTP status, and a code registered for that status. */
  private checkError(json: { value: unknown } | undefined, status: number, pointer: string, problems: string[]): void {
    if (json === undefined) {
      problems.push(`error ${status} without a JSON envelope`);
      return;
    }
    const validate = this.validator(pointer);
    if (!validate(json.value)) {
      problems.push(...ResponseContract.describe(validate.errors));
      return;
    }
    const error = (json.value as { error: { statusCode: number; code: keyof typeof ERROR_CODES } }).error;
    if (error.statusCode !== status) problems.push(`error.statusCode ${error.statusCode} differs from the HTTP status ${status}`);
    if (ERROR_CODES[error.code].status !== status) problems.push(`error.code ${error.code} belongs to ${ERROR_CODES[error.code].status}, not ${status}`);
  }

  /** Express middleware: records every response's problems (never changes a response). */
  middleware(): RequestHandler {
    return (req, res, next) => {
      observe(req, res, (observed) => {
        try {
          const problems = this.check(observed);
          if (problems.length > 0) this.violations.push({ request: `${observed.method} ${req.originalUrl} -> ${observed.status}`, problems });
        } catch (err) {
          this.violations.push({ request: `${observed.method} ${req.originalUrl}`, problems: [`response check failed: ${(err as Error).stack}`] });
        }
      });
      next();
    };
  }

  /** Hands out the problems recorded so far and forgets them. */
  takeViolations(): Violation[] {
    return this.violations.splice(0, this.violations.length);
  }
}

/** Calls `done` with the response as it ends: status, headers and, for JSON, the body. */
function observe(req: Request, res: Response, done: (observed: ObservedResponse) => void): void {
  // Taken now: inside a mounted router req.url (and so req.path) is relative to the mount point.
  const path = req.path;
  const chunks: Buffer[] = [];
  const isJson = () => mediaEssence(res.getHeader('content-type')) === 'application/json';
  const keep = (chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function' || !isJson()) return;
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.write = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return write(...args);
  }) as Response['write'];
  res.end = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    done({
      method: req.method,
      path,
      status: res.statusCode,
      headers: res.getHeaders(),
      body: isJson() && req.method !== 'HEAD' ? Buffer.concat(chunks) : undefined,
    });
    return end(...args);
  }) as Response['end'];
}

const contracts = new Map<string, ResponseContract>();
const DEFAULT_METRICS_PATH = '/api/metrics';

/** One contract per metrics path (the only setting that changes the document). */
export function responseContract(metricsPath: string): ResponseContract {
  let contract = contracts.get(metricsPath);
  if (!contract) {
    contract = new ResponseContract(buildOpenApiDocument({ metricsPath }) as unknown as Json);
    contracts.set(metricsPath, contract);
  }
  return contract;
}

/** Every contract built in this run (the hooks collect their violations). */
export function allContracts(): ResponseContract[] {
  return [...contracts.values()];
}

export interface Coverage {
  /** Operations of the document. */
  operations: string[];
  /** Those whose documented success response was seen and checked. */
  covered: string[];
  /** Those that answered at all (any status). */
  answered: string[];
}

/** Coverage by operationId over every contract of the run (they differ only in the metrics path). */
export function responseCoverage(): Coverage {
  const successes = responseContract(DEFAULT_METRICS_PATH).successStatuses();
  const seen = (id: string) => allContracts().flatMap((c) => [...(c.seen.get(id) ?? [])]);
  const operations = [...successes.keys()];
  return {
    operations,
    covered: operations.filter((id) => seen(id).includes(successes.get(id)!)),
    answered: operations.filter((id) => seen(id).length > 0),
  };
}
