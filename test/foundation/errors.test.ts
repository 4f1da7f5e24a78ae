import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  RateLimitError,
  ValidationError,
} from '../../src/errors/app-errors.js';
import { createErrorHandler } from '../../src/http/error-handler.js';
import { createLogger } from '../../src/logging/logger.js';
import { testApp } from '../support/harness.js';

function appThrowing(err: unknown, showStack = false) {
  const app = express();
  app.get('/boom', () => {
    throw err;
  });
  app.use(createErrorHandler(createLogger('error', { silent: true }), showStack));
  return app;
}

describe('error envelope (spec section 7)', () => {
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

  it('uses the status code an error carries', async () => {
    const err = Object.assign(new Error('teapot'), { status: 418 });
    const res = await request(appThrowing(err)).get('/boom');
    expect(res.status).to.equal(400);
    expect(res.body.error.statusCode).to.equal(400);
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
        .post('/api/health')
        .set('Content-Type', 'application/json')
        .send('{"username": ');
      expect(res.status).to.equal(400);
      expect(res.body.error).to.deep.equal({ message: 'Neplatný formát JSON', statusCode: 400, code: 'invalid_json' });
    });

    it('answers an oversized JSON body with 413 in the envelope', async () => {
      const res = await request(await testApp())
        .post('/api/health')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ big: 'x'.repeat(200_000) }));
      expect(res.status).to.equal(413);
      expect(res.body.success).to.equal(false);
      expect(res.body.error.statusCode).to.equal(413);
    });

    it('answers an unsupported charset with 400, not 500', async () => {
      const res = await request(await testApp())
        .post('/api/health')
        .set('Content-Type', 'application/json; charset=klingon')
        .send('{}');
      expect(res.status).to.be.within(400, 415);
      expect(res.body.success).to.equal(false);
    });

    it('returns a request id on every response', async () => {
      const res = await request(await testApp()).get('/api/health');
      expect(res.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
    });
  });
});
