import crypto from 'node:crypto';
import { expect } from 'chai';
import request from 'supertest';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { testApp, testContext } from '../support/harness.js';

/**
 * Issue 34: every path of the OpenAPI document, every method. A documented method never answers 405;
 * an undocumented one answers 405 with `Allow` naming exactly the documented ones (GET brings HEAD),
 * and OPTIONS answers the same list. Anonymous requests: the method rule comes before authentication.
 */

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'] as const;

interface Parameter {
  in: string;
  name: string;
  schema?: { type?: string; format?: string; enum?: unknown[] };
}
type Operation = { parameters?: Parameter[] };
type PathItem = Partial<Record<(typeof METHODS)[number], Operation>> & { parameters?: Parameter[] };

/** A concrete path for a template: a value of each parameter's own type (a fresh UUID for ids). */
function concrete(template: string, item: PathItem): string {
  const params = new Map<string, Parameter>();
  for (const op of Object.values(item)) for (const p of (op as Operation).parameters ?? []) if (p.in === 'path') params.set(p.name, p);
  return template.replace(/\{([^}]+)\}/g, (_all, name: string) => {
    const schema = params.get(name)?.schema ?? {};
    if (schema.enum?.length) return String(schema.enum[0]);
    if (schema.type === 'integer' || schema.type === 'number') return '1';
    if (schema.format === 'uuid') return crypto.randomUUID();
    return 'probe1';
  });
}

describe('methods: every documented path answers 405 with Allow for the methods it lacks (issue 34)', function () {
  this.timeout(120_000);

  it('walks every path and method of the document', async () => {
    const ctx = await testContext();
    const app = await testApp();
    const doc = buildOpenApiDocument({ metricsPath: ctx.config.metricsPath }) as unknown as { paths: Record<string, PathItem> };
    const problems: string[] = [];
    let checked = 0;
    for (const [template, item] of Object.entries(doc.paths)) {
      const path = concrete(template, item);
      const documented = METHODS.filter((m) => item[m] !== undefined);
      const allowed = new Set(documented.map((m) => m.toUpperCase()));
      if (allowed.has('GET')) allowed.add('HEAD');
      const allow = [...allowed].sort().join(', ');
      for (const method of METHODS) {
        checked++;
        const res = await request(app)[method](path);
        const label = `${method.toUpperCase()} ${template} (${path})`;
        if (allowed.has(method.toUpperCase())) {
          if (res.status === 405) problems.push(`${label}: documented, but 405`);
        } else if (res.status !== 405) {
          problems.push(`${label}: not documented, answered ${res.status} instead of 405`);
        } else if (res.headers.allow !== allow) {
          problems.push(`${label}: Allow "${res.headers.allow}", the document says "${allow}"`);
        }
      }
      const options = await request(app).options(path);
      if (options.headers.allow !== `${[...allowed, 'OPTIONS'].sort().join(', ')}` && options.headers.allow !== `${allow}, OPTIONS`) {
        problems.push(`OPTIONS ${template}: Allow "${options.headers.allow}", the document says "${allow}" (+ OPTIONS)`);
      }
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
    expect(checked).to.be.greaterThan(100);
  });

  it('DELETE /api/timesheets/my is a 405 (the /:id route does not swallow it), and OPTIONS does not list DELETE', async () => {
    const app = await testApp();
    const res = await request(app).delete('/api/timesheets/my');
    expect(res.status).to.equal(405);
    expect(res.body.error.code).to.equal('method_not_allowed');
    expect(res.headers.allow).to.equal('GET, HEAD');
    const options = await request(app).options('/api/timesheets/my');
    expect(options.headers.allow).to.equal('GET, HEAD, OPTIONS');
  });
});
