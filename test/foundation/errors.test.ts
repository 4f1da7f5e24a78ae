import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { AuthenticationError, BadRequestError, ConflictError, ForbiddenError, NotFoundError, RateLimitError, ValidationError } from '../../src/errors/app-errors.js';
import { createErrorHandler } from '../../src/http/error-handler.js';
import { createLogger } from '../../src/logging/logger.js';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { testApp } from '../support/harness.js';

function appThrowing(err: unknown, showStack = false) {
  const app = express();
  app.get('/boom', () => {
    throw err;
  });
  app.use(createErrorHandler(createLogger('error', { silent: true }), showStack));
  return app;
}

describe('error envelope (docs/contract.md §7)', () => {
  const kinds: Array<[string, Error, number, string]> = [
    ['ValidationError', new ValidationError('Zlé údaje', [{ field: 'x', message: 'y' }]), 400, 'Zlé údaje'],
    ['BadRequestError', new BadRequestError(), 400, 'Zlá požiadavka'],
    ['AuthenticationError', new AuthenticationError(), 401, 'Neautorizovaný prístup'],
    ['ForbiddenError', new ForbiddenError(), 403, 'Prístup zamietnutý'],
    ['NotFoundError', new NotFoundError(), 404, 'Nenájdené'],
    ['ConflictError', new ConflictError(), 409, 'Konflikt'],
    ['RateLimitError', new RateLimitError(undefined, 30), 429, 'Príliš veľa požiadaviek'],
    ['any other error', new Error('secret internals: SELECT * FROM users'), 500, 'Interná chyba servera'],
  ];

  for (const [name, err, status, message] of kinds) {
    it(`renders ${name} as ${status} with its Slovak default message`, async () => {
      const res = await request(appThrowing(err)).get('/boom');
      expect(res.status).to.equal(status);
      expect(res.body.success).to.equal(false);
      expect(res.body.error.statusCode).to.equal(status);
      expect(res.body.error.message).to.equal(message);
      expect(res.body.error).not.to.have.property('stack');
      expect(JSON.stringify(res.body)).not.to.contain('SELECT');
    });
  }

  it('carries details only for errors that have them', async () => {
    const withDetails = await request(appThrowing(new ValidationError('Zlé údaje', [{ field: 'a' }]))).get('/boom');
    expect(withDetails.body.error.details).to.deep.equal([{ field: 'a' }]);
    const without = await request(appThrowing(new NotFoundError())).get('/boom');
    expect(without.body.error).not.to.have.property('details');
  });

  it('sets Retry-After on a rate-limit error', async () => {
    const res = await request(appThrowing(new RateLimitError(undefined, 12.2))).get('/boom');
    expect(res.headers['retry-after']).to.equal('13');
  });

  it('keeps the 4xx status a library error carries where it has a code of its own; others become 400', async () => {
    const cases: Array<[number, number, string]> = [
      [408, 408, 'request_timeout'],
      [413, 413, 'payload_too_large'],
      [415, 415, 'unsupported_media_type'],
      [417, 417, 'expectation_failed'],
      [431, 431, 'request_headers_too_large'],
      [418, 400, 'bad_request'],
    ];
    for (const [carried, status, code] of cases) {
      const res = await request(appThrowing(Object.assign(new Error('from a library'), { status: carried }))).get('/boom');
      expect(res.status, String(carried)).to.equal(status);
      expect(res.body.error).to.include({ statusCode: status, code });
      expect(res.body.error.message).to.not.contain('library');
    }
  });

  it('shows the stack only when stack output is enabled', async () => {
    const res = await request(appThrowing(new Error('x'), true)).get('/boom');
    expect(res.body.error.stack).to.be.a('string');
  });

  describe('through the real app', () => {
    it('answers an unknown /api route with 404 in the envelope', async () => {
      const res = await request(await testApp()).get('/api/does-not-exist');
      expect(res.status).to.equal(404);
      expect(res.headers['content-type']).to.match(/application\/json/);
      expect(res.body).to.deep.equal({ success: false, error: { message: 'Cesta neexistuje', statusCode: 404, code: 'route_not_found' } });
    });

    it('answers a path outside /api with the envelope too, never HTML', async () => {
      const res = await request(await testApp()).get('/index.html');
      expect(res.status).to.equal(404);
      expect(res.body.success).to.equal(false);
    });

    it('answers malformed JSON with 400 BadRequest', async () => {
      const res = await request(await testApp())
        .post('/api/auth/login')
        .set('Content-Type', 'application/json')
        .send('{"username": ');
      expect(res.status).to.equal(400);
      expect(res.body.error).to.deep.equal({ message: 'Neplatný formát JSON', statusCode: 400, code: 'invalid_json' });
    });

    it('answers an oversized JSON body with 413 in the envelope', async () => {
      const res = await request(await testApp())
        .post('/api/auth/login')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ big: 'x'.repeat(200_000) }));
      expect(res.status).to.equal(413);
      expect(res.body.success).to.equal(false);
      expect(res.body.error.statusCode).to.equal(413);
    });

    it("answers body-parser's 415s as 415 with their own code (unsupported charset, Content-Encoding)", async () => {
      const app = await testApp();
      const charset = await request(app).post('/api/auth/login').set('Content-Type', 'application/json; charset=klingon').send('{}');
      expect(charset.status).to.equal(415);
      expect(charset.body.error).to.deep.equal({ message: 'Nepodporovaná znaková sada požiadavky (očakáva sa UTF-8)', statusCode: 415, code: 'unsupported_media_type' });
      const encoding = await request(app).post('/api/auth/login').set('Content-Type', 'application/json').set('Content-Encoding', 'x-unknown').send('{}');
      expect(encoding.status).to.equal(415);
      expect(encoding.body.error.code).to.equal('unsupported_media_type');
    });

    it('answers a JSON endpoint given another content type with 415 (form, text, none); an empty body is fine', async () => {
      const app = await testApp();
      const session = await sessionFor(await createUser());
      for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'application/xml', 'multipart/form-data; boundary=x']) {
        const res = await request(app).post('/api/contacts').set('Authorization', session.bearer).set('Content-Type', type).send('email=a@b.sk');
        expect(res.status, type).to.equal(415);
        expect(res.body.error).to.include({ statusCode: 415, code: 'unsupported_media_type' });
      }
      // A body-less POST of any type reaches the route (here: its validation of the missing fields).
      const empty = await request(app).post('/api/contacts').set('Authorization', session.bearer).set('Content-Type', 'text/plain');
      expect(empty.status).to.equal(400);
      expect(empty.body.error.code).to.equal('validation_failed');
    });

    it('answers a known path with a wrong method with 405 and Allow; unknown paths stay 404', async () => {
      const app = await testApp();
      const cases: Array<[string, string, string]> = [
        ['put', '/api/auth/login', 'POST'],
        ['get', '/api/auth/logout', 'POST'],
        ['delete', '/api/auth/me', 'GET, HEAD'],
        ['post', '/api/contacts/00000000-0000-4000-8000-000000000000', 'DELETE, GET, HEAD, PATCH'],
        ['put', '/api/health', 'GET, HEAD'],
        ['post', '/api/openapi.json', 'GET, HEAD'],
        ['put', '/api/timesheets/upload', 'POST'], // the fixed path wins over its /:id sibling
        ['patch', '/api/emails/contact/00000000-0000-4000-8000-000000000000/read', 'POST'],
      ];
      for (const [method, path, allow] of cases) {
        const res = await request(app)[method as 'get'](path);
        expect(res.status, `${method} ${path}`).to.equal(405);
        expect(res.headers.allow, `${method} ${path}`).to.equal(allow);
        expect(res.body).to.deep.equal({ success: false, error: { message: 'Metóda nie je pre túto cestu povolená', statusCode: 405, code: 'method_not_allowed' } });
      }
      const options = await request(app).options('/api/auth/login');
      expect(options.status).to.equal(204);
      expect(options.headers.allow).to.equal('POST, OPTIONS');
      for (const path of ['/api/auth/nope', '/api/nope', '/nope']) {
        const res = await request(app).put(path);
        expect(res.status, path).to.equal(404);
        expect(res.body.error.code).to.equal('route_not_found');
      }
    });

    it('returns a request id on every response', async () => {
      const res = await request(await testApp()).get('/api/health');
      expect(res.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
    });
  });

  describe('every validation message is Slovak (one zod error map)', () => {
    const ENGLISH = /\b(expected|received|invalid|must|required|string|number|too (big|small)|greater|less|characters?|unrecognized|keys?|option|input)\b/i;

    it('query, body, type, enum, length, uuid and email problems all answer in Slovak', async () => {
      const app = await testApp();
      const member = await sessionFor(await createUser());
      const admin = await sessionFor(await createUser({ role: 'admin' }));
      const cases: Array<[string, string, string, unknown, string, string]> = [
        // [who, method, path, body, field, message]
        ['member', 'get', '/api/contacts?limit=101', undefined, 'limit', 'Hodnota môže byť najviac 100'],
        ['member', 'get', '/api/contacts?page=0', undefined, 'page', 'Hodnota musí byť aspoň 1'],
        ['member', 'get', '/api/contacts?page=abc', undefined, 'page', 'Očakáva sa číslo, prišlo: neplatné číslo'],
        ['member', 'get', '/api/contacts?limit=1.5', undefined, 'limit', 'Očakáva sa celé číslo, prišlo: číslo'],
        ['member', 'get', '/api/contacts?serach=x', undefined, 'serach', 'Neznáme pole: serach'],
        ['member', 'post', '/api/contacts', [], '', 'Očakáva sa objekt JSON, prišlo: zoznam'],
        ['member', 'post', '/api/contacts', { emailAccountId: 'x', email: 'x' }, 'emailAccountId', 'emailAccountId musí byť identifikátor emailového účtu'],
        ['member', 'post', '/api/email-accounts', { email: 5, emailPassword: 'x' }, 'email', 'Email je povinný'],
        ['member', 'patch', '/api/emails/00000000-0000-4000-8000-000000000000', { isRead: true, extra: 1 }, 'extra', 'Neznáme pole: extra'],
        ['admin', 'get', '/api/admin/audit-logs?username=', undefined, 'username', 'Hodnota nesmie byť prázdna'],
        ['admin', 'get', '/api/admin/users?role=boss', undefined, 'role', 'Rola musí byť admin alebo member'],
        ['admin', 'post', '/api/admin/users', { username: 'ab' }, 'username', 'Používateľské meno musí mať aspoň 3 znaky'],
        ['admin', 'post', '/api/admin/users', { username: 'valid.name', firstName: 'x'.repeat(101) }, 'firstName', 'Najviac 100 znakov'],
        ['admin', 'post', '/api/admin/users', { username: 'valid.name', firstName: 7 }, 'firstName', 'Očakáva sa text, prišlo: číslo'],
        ['admin', 'post', '/api/admin/users', { username: 'valid.name', email: 'nope', emailPassword: 'x' }, 'email', 'Neplatná emailová adresa'],
        ['admin', 'get', '/api/admin/audit-logs?userId=nope', undefined, 'userId', 'Neplatný identifikátor používateľa'],
        ['admin', 'get', '/api/timesheets/all?userId=nope&month=13', undefined, 'userId', 'Neplatný identifikátor používateľa'],
      ];
      for (const [who, method, path, body, field, message] of cases) {
        let req = request(app)
          [method as 'get'](path)
          .set('Authorization', (who === 'admin' ? admin : member).bearer);
        if (body !== undefined) req = req.send(body as object);
        const res = await req;
        const context = `${method.toUpperCase()} ${path} ${JSON.stringify(body) ?? ''}: ${JSON.stringify(res.body)}`;
        expect(res.status, context).to.equal(400);
        expect(res.body.error.code, context).to.equal('validation_failed');
        expect(res.body.error.details, context).to.deep.include({ field: field || null, message });
        for (const detail of res.body.error.details as Array<{ message: string }>) expect(detail.message, context).to.not.match(ENGLISH);
      }
    });
  });
});
