import { expect } from 'chai';
import express from 'express';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Suite } from 'mocha';
import request from 'supertest';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { ResponseContract, responseCoverage, type ObservedResponse } from '../support/openapi-contract.js';

const CONTACT = {
  id: '6f1c1d6e-3c1a-4c55-9a8e-2d6f0b1e9c3a',
  emailAccountId: '0b8a9f3e-1d2c-4e5f-8a9b-0c1d2e3f4a5b',
  email: 'jana@firma.sk',
  name: 'Jana',
  notes: null,
  phone: null,
  title: null,
  tags: [],
  lastEmailAt: null,
  companyId: null,
  company: null,
  unreadCount: 0,
  addedAt: '2026-03-01T08:30:00.000Z',
  createdAt: '2026-03-01T08:30:00.000Z',
  updatedAt: '2026-03-01T08:30:00.000Z',
};

function response(method: string, path: string, status: number, body: unknown, headers: Record<string, unknown> = {}): ObservedResponse {
  return {
    method,
    path,
    status,
    headers: { 'x-request-id': 'r1', 'content-type': 'application/json; charset=utf-8', ...headers },
    body: Buffer.from(JSON.stringify(body)),
  };
}

describe('the OpenAPI response check (test/support/openapi-contract.ts)', () => {
  // An instance of its own: the run's contract (and its coverage) stays untouched by these made-up responses.
  const contract = new ResponseContract(buildOpenApiDocument({ metricsPath: '/api/metrics' }) as unknown as Record<string, unknown>);
  const check = (res: ObservedResponse) => contract.check(res);

  it('accepts a response that matches its operation', () => {
    expect(check(response('GET', `/api/contacts/${CONTACT.id}`, 200, { success: true, data: { contact: CONTACT }, message: 'Kontakt' }))).to.deep.equal([]);
  });

  it('refuses a bare resource, a missing field, an unknown field and a wrong type', () => {
    const at = `/api/contacts/${CONTACT.id}`;
    expect(check(response('GET', at, 200, { success: true, data: CONTACT, message: 'Kontakt' }))).to.not.deep.equal([]);
    const { email: _email, ...missing } = CONTACT;
    expect(check(response('GET', at, 200, { success: true, data: { contact: missing }, message: 'Kontakt' })).join()).to.contain('email');
    expect(check(response('GET', at, 200, { success: true, data: { contact: { ...CONTACT, accountId: 'x' } }, message: 'Kontakt' })).join()).to.contain('additional');
    expect(check(response('GET', at, 200, { success: true, data: { contact: { ...CONTACT, unreadCount: '0' } }, message: 'Kontakt' })).join()).to.contain('unreadCount');
    expect(check(response('GET', at, 200, { success: true, data: { contact: { ...CONTACT, createdAt: 'yesterday' } }, message: 'Kontakt' })).join()).to.contain('createdAt');
  });

  it('refuses a status the operation does not document, naming the documented ones', () => {
    const problems = check(response('GET', '/api/contacts', 418, { success: false, error: { message: 'x', statusCode: 418, code: 'bad_request' } }));
    expect(problems.join()).to.contain('status 418 is not documented for GET /api/contacts');
  });

  it('refuses a missing X-Request-Id and a missing documented Set-Cookie', () => {
    const logout = { success: true, message: 'Odhlásenie úspešné' };
    expect(check(response('POST', '/api/auth/logout', 200, logout, { 'set-cookie': ['accessToken=; Path=/'] }))).to.deep.equal([]);
    expect(check(response('POST', '/api/auth/logout', 200, logout)).join()).to.contain('Set-Cookie');
    expect(check(response('POST', '/api/auth/logout', 200, logout, { 'set-cookie': ['a=b'], 'x-request-id': undefined })).join()).to.contain('X-Request-Id');
  });

  it('checks errors against the envelope, its statusCode and a code of that status', () => {
    const envelope = (statusCode: number, code: string) => ({ success: false, error: { message: 'Nenájdené', statusCode, code } });
    expect(check(response('GET', `/api/contacts/${CONTACT.id}`, 404, envelope(404, 'not_found')))).to.deep.equal([]);
    expect(check(response('GET', `/api/contacts/${CONTACT.id}`, 404, envelope(400, 'not_found'))).join()).to.contain('statusCode');
    expect(check(response('GET', `/api/contacts/${CONTACT.id}`, 404, envelope(404, 'rate_limited'))).join()).to.contain('rate_limited');
    expect(check(response('GET', `/api/contacts/${CONTACT.id}`, 404, envelope(404, 'no_such_code')))).to.not.deep.equal([]);
    // No operation (an unknown path), but still the envelope.
    expect(check(response('GET', '/api/nowhere', 404, envelope(404, 'route_not_found')))).to.deep.equal([]);
    expect(check(response('GET', '/api/nowhere', 404, { message: 'Not Found' }))).to.not.deep.equal([]);
  });

  it('checks the Content-Type of files and text against the documented media types', () => {
    const file = (type: string) => ({
      ...response('GET', `/api/timesheets/${CONTACT.id}/download`, 200, ''),
      body: undefined,
      headers: { 'x-request-id': 'r', 'content-type': type, 'content-disposition': 'attachment; filename="a.pdf"' },
    });
    expect(check(file('application/pdf'))).to.deep.equal([]);
    expect(check(file('text/html')).join()).to.contain('text/html');
    const { 'content-disposition': _cd, ...noDisposition } = file('application/pdf').headers;
    expect(check({ ...file('application/pdf'), headers: noDisposition }).join()).to.contain('Content-Disposition');
  });

  it('prefers the static path over a template (/api/timesheets/my is not /api/timesheets/{id})', () => {
    const page = { success: true, data: { items: [], pagination: { page: 1, limit: 50, total: 0, totalExact: true, hasNext: false } }, message: 'Zoznam výkazov' };
    expect(check(response('GET', '/api/timesheets/my', 200, page))).to.deep.equal([]);
  });

  it('records the problems of responses an app really gives, without changing them', async () => {
    const app = express();
    app.use(contract.middleware());
    app.get('/api/contacts/:id', (_req, res) => {
      res.setHeader('X-Request-Id', 'r2');
      res.json({ success: true, data: CONTACT, message: 'Kontakt' });
    });
    const res = await request(app).get(`/api/contacts/${CONTACT.id}`);
    expect(res.body.data).to.deep.equal(CONTACT);
    const violations = contract.takeViolations();
    expect(violations).to.have.length(1);
    expect(violations[0].request).to.equal(`GET /api/contacts/${CONTACT.id} -> 200`);
  });
});

const testRoot = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

function testFilesOnDisk(dir = testRoot): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFilesOnDisk(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

function loadedFiles(suite: Suite): string[] {
  const own = [suite.file, ...suite.tests.map((t) => t.file)].filter((f): f is string => typeof f === 'string');
  return [...own, ...suite.suites.flatMap(loadedFiles)];
}

/**
 * A root-level hook: after a run of the whole suite (every test file loaded, no --grep), every
 * operation of the document must have had its success response checked. Partial runs only print the
 * coverage line (test/support/summary-reporter.cjs).
 */
after(function () {
  const root = this.test!.parent!;
  const loaded = new Set(loadedFiles(root).map((f) => path.resolve(f)));
  const whole = testFilesOnDisk().every((f) => loaded.has(f)) && !process.argv.some((a) => /^(--grep|-g|--fgrep|-f)$/.test(a) || a.startsWith('--grep='));
  if (!whole) return;
  const { operations, covered } = responseCoverage();
  const never = operations.filter((id) => !covered.includes(id));
  expect(never, 'operations whose success response no test checked against the OpenAPI document').to.deep.equal([]);
});
