import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { toOpenApiPath } from '../../src/openapi/document.js';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { testApp } from '../support/harness.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: unknown;
}

/** Every route the real express app has under /api, as "METHOD /api/path/{param}". */
function registeredRoutes(app: Express): string[] {
  const found = new Set<string>();
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths) {
          for (const [method, on] of Object.entries(layer.route.methods)) {
            if (on && method !== '_all') found.add(`${method.toUpperCase()} ${toOpenApiPath((prefix + path).replace(/(.)\/$/, '$1'))}`);
          }
        }
      } else if (layer.handle?.stack) {
        const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
        walk(layer.handle.stack, prefix + mount);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return [...found].filter((r) => r.split(' ')[1].startsWith('/api')).sort();
}

type Json = Record<string, unknown>;
type Operation = { operationId?: string; responses?: Record<string, Json>; parameters?: Json[]; security?: Array<Record<string, string[]>> };

function operations(doc: Json): Array<{ key: string; path: string; method: string; op: Operation }> {
  const out = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined;
      if (op) out.push({ key: `${method.toUpperCase()} ${path}`, path, method, op });
    }
  }
  return out;
}

/** Every "$ref" anywhere in the document, with where it was found. */
function refs(value: unknown, at = '#'): Array<{ ref: string; at: string }> {
  if (Array.isArray(value)) return value.flatMap((v, i) => refs(v, `${at}/${i}`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value as Json).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [{ ref: v, at }] : refs(v, `${at}/${k}`)));
}

function resolvePointer(doc: Json, ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Json)[key] : undefined), doc);
}

describe('OpenAPI document (GET /api/openapi.json)', () => {
  let app: Express;
  let doc: Json;

  before(async () => {
    app = await testApp();
    const res = await request(app).get('/api/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.match(/^application\/json/);
    doc = res.body as Json;
  });

  it('is public OpenAPI 3.1 with the shared error envelope and the cookie/bearer security schemes', () => {
    expect(doc.openapi).to.equal('3.1.0');
    expect((doc.info as Json).title).to.be.a('string');
    const components = doc.components as Json;
    expect(components.schemas).to.have.property('ErrorEnvelope');
    expect(components.securitySchemes).to.have.all.keys('accessCookie', 'bearer', 'refreshCookie', 'apiToken');
    expect((components.securitySchemes as Json).apiToken).to.deep.include({ type: 'http', scheme: 'bearer' });
    // Issue 48: the token's scope per operation, from the table the middleware enforces; none where tokens are refused.
    const paths = doc.paths as Record<string, Record<string, Json>>;
    expect(paths['/api/contacts'].get['x-api-token-scopes']).to.deep.equal(['contacts:read']);
    expect(paths['/api/timesheets/all'].get['x-api-token-scopes']).to.deep.equal(['timesheets:read', 'admin']);
    expect(paths['/api/auth/me'].get['x-api-token-scopes']).to.deep.equal([]);
    for (const refused of [paths['/api/tokens'].post, paths['/api/auth/set-password'].post, paths['/api/events'].get]) {
      expect(refused['x-api-token-scopes']).to.equal(undefined);
      expect(JSON.stringify(refused.security)).not.to.contain('apiToken');
    }
    expect((components.securitySchemes as Json).accessCookie).to.deep.include({ type: 'apiKey', in: 'cookie', name: 'accessToken' });
    expect((components.securitySchemes as Json).bearer).to.deep.include({ type: 'http', scheme: 'bearer' });
  });

  it('documents every route the app has under /api, and nothing it does not have', () => {
    const registered = registeredRoutes(app);
    // The walk itself must see the app: a broken walk would make this test pass vacuously.
    expect(registered).to.include.members(['POST /api/auth/login', 'GET /api/timesheets/{id}/download', 'GET /api/metrics', 'GET /api/health/ready']);
    const documented = operations(doc)
      .map((o) => o.key)
      .sort();
    const missing = registered.filter((r) => !documented.includes(r));
    expect(missing, `routes missing from the OpenAPI document (add them to src/openapi/*-doc.ts)`).to.deep.equal([]);
    const stale = documented.filter((d) => !registered.includes(d));
    expect(stale, 'documented routes the app does not have').to.deep.equal([]);
  });

  it('gives every operation a unique id, a success and the error envelope on failures', () => {
    const ids = new Set<string>();
    for (const { key, op } of operations(doc)) {
      expect(op.operationId, key).to.be.a('string');
      expect(ids.has(op.operationId!), `duplicate operationId ${op.operationId}`).to.equal(false);
      ids.add(op.operationId!);
      const statuses = Object.keys(op.responses ?? {});
      expect(
        statuses.some((s) => /^2\d\d$/.test(s)),
        `${key} has no success response`,
      ).to.equal(true);
      expect(statuses, key).to.include('500');
      for (const status of statuses.filter((s) => /^[45]/.test(s))) {
        expect(op.responses![status], `${key} ${status}`)
          .to.have.property('$ref')
          .that.match(/^#\/components\/responses\//);
      }
    }
  });

  it('declares every path parameter and uses only defined security schemes', () => {
    const schemes = Object.keys((doc.components as Json).securitySchemes as Json);
    for (const { key, path, op } of operations(doc)) {
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const declared = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      expect(declared.sort(), key).to.deep.equal(templated.sort());
      expect(op.security, `${key} must state its security (empty = public)`).to.be.an('array');
      for (const requirement of op.security!) for (const name of Object.keys(requirement)) expect(schemes, key).to.include(name);
    }
  });

  it('resolves every $ref', () => {
    const all = refs(doc);
    expect(all.length).to.be.greaterThan(10);
    for (const { ref, at } of all) {
      expect(ref, at).to.match(/^#\//);
      expect(resolvePointer(doc, ref), `${ref} (at ${at})`).to.not.equal(undefined);
    }
  });

  it('describes the bodies with the schemas the routes validate with', () => {
    const paths = doc.paths as Record<string, Record<string, Json>>;
    const body = (path: string, method: string, type = 'application/json') => ((paths[path][method].requestBody as Json).content as Record<string, { schema: Json }>)[type].schema;
    const login = body('/api/auth/login', 'post');
    expect(login.required).to.have.members(['username', 'password']);
    expect(login.properties).to.have.all.keys('username', 'password', 'rememberMe');
    const upload = body('/api/timesheets/upload', 'post', 'multipart/form-data');
    expect(upload.properties).to.have.all.keys('file', 'year', 'month');
    // Admin routes say so and answer 403 to members.
    expect(paths['/api/admin/users'].get.responses).to.have.property('403');
    expect(paths['/api/auth/login'].post.security).to.deep.equal([]);
  });

  it('describes every JSON success body (no empty `data`), names single resources data.<name>, and lists as items + pagination', () => {
    const schemaOf = (node: Json): Json => (node.$ref ? (resolvePointer(doc, node.$ref as string) as Json) : node);
    for (const { key, op } of operations(doc)) {
      const [status, success] = Object.entries(op.responses!).find(([s]) => s.startsWith('2'))!;
      const json = ((success.content as Record<string, { schema: Json }> | undefined) ?? {})['application/json'];
      if (!json || key === 'GET /api/openapi.json') continue;
      const envelope = schemaOf(json.schema);
      const properties = envelope.properties as Record<string, Json>;
      expect(properties.success, `${key} ${status}`).to.deep.include({ const: true });
      expect(envelope.required, key).to.include('message');
      if (!properties.data) continue;
      const data = schemaOf(properties.data);
      expect(data.type, `${key}: data must be described, not unknown`).to.equal('object');
      expect(Object.keys(data.properties as Json).length, key).to.be.greaterThan(0);
      expect(data.additionalProperties, `${key}: undocumented fields must not pass`).to.equal(false);
    }
    const paths = doc.paths as Record<string, Record<string, { responses: Record<string, Json> }>>;
    const dataOf = (path: string, method: string, status: string) =>
      Object.keys(
        ((schemaOf((paths[path][method].responses[status].content as Record<string, { schema: Json }>)['application/json'].schema).properties as Json).data as Json)
          .properties as Json,
      );
    expect(dataOf('/api/contacts/{id}', 'get', '200')).to.deep.equal(['contact']);
    expect(dataOf('/api/emails/{id}', 'patch', '200')).to.deep.equal(['email']);
    expect(dataOf('/api/timesheets/upload', 'post', '201')).to.deep.equal(['timesheet']);
    expect(dataOf('/api/email-accounts', 'post', '201')).to.deep.equal(['emailAccount']);
    expect(dataOf('/api/auth/link-email', 'post', '200')).to.have.members(['email', 'accountId', 'emailAccount', 'needsPasswordChange', 'needsEmailSetup']);
    expect(dataOf('/api/contacts', 'get', '200')).to.deep.equal(['items', 'pagination']);
  });

  it('names operations for generated clients, states servers, and documents X-Request-Id, Set-Cookie and 413', () => {
    const byId = new Map(operations(doc).map((o) => [o.op.operationId, o.key]));
    expect(byId.get('listContacts')).to.equal('GET /api/contacts');
    expect(byId.get('uploadTimesheet')).to.equal('POST /api/timesheets/upload');
    expect(byId.get('login')).to.equal('POST /api/auth/login');
    for (const id of byId.keys())
      expect(id, 'operationIds are camelCase verbs, not derived from the path')
        .to.match(/^[a-z]+[A-Za-z]*$/)
        .and.not.match(/^(get|post|patch|delete)Api/);
    expect((doc.servers as Json[]).length).to.be.greaterThan(0);
    const headersOf = (response: Json): Json => {
      const resolved = response.$ref ? (resolvePointer(doc, response.$ref as string) as Json) : response;
      return (resolved.headers ?? {}) as Json;
    };
    for (const { key, op } of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses!)) {
        expect(headersOf(response), `${key} ${status}`).to.have.property('X-Request-Id');
      }
      expect(op.responses, `${key}: any JSON body may be over the limit`).to.have.property('413');
    }
    const paths = doc.paths as Record<string, Record<string, Operation>>;
    for (const [path, method] of [
      ['/api/auth/login', 'post'],
      ['/api/auth/refresh', 'post'],
      ['/api/auth/logout', 'post'],
    ] as const) {
      expect(headersOf(paths[path][method].responses!['200']), path).to.have.nested.property('Set-Cookie.required', true);
    }
    // Another member's timesheet is answered 404, not 403: the document says what the server does.
    expect(Object.keys(paths['/api/timesheets/{id}/download'].get.responses!)).to.include('404');
  });

  it('documents list limits that the server really enforces', async () => {
    const admin = await sessionFor(await createUser({ role: 'admin' }));
    const lists = operations(doc).filter(({ method, path, op }) => method === 'get' && !path.includes('{') && (op.parameters ?? []).some((p) => p.name === 'limit'));
    expect(lists.length).to.be.greaterThan(4);
    for (const { path, op } of lists) {
      const limit = (op.parameters ?? []).find((p) => p.name === 'limit')!.schema as { maximum: number };
      // A list with a required parameter (the search box's q) gets one, so that only the limit decides.
      const required = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required && p.name !== 'limit').map((p) => `&${String(p.name)}=matica`);
      const over = await request(app)
        .get(`${path}?limit=${limit.maximum + 1}${required.join('')}`)
        .set('Authorization', admin.bearer);
      expect(over.status, `${path}?limit=${limit.maximum + 1}`).to.equal(400);
      const at = await request(app)
        .get(`${path}?limit=${limit.maximum}${required.join('')}`)
        .set('Authorization', admin.bearer);
      expect(at.status, `${path}?limit=${limit.maximum}`).to.equal(200);
    }
  });
});
