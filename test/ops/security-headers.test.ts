import { expect } from 'chai';
import request from 'supertest';
import { testApp } from '../support/harness.js';

const FRONTEND = 'https://crm.example.test';

describe('CORS', () => {
  const corsEnv = () => ({ CORS_ORIGIN: FRONTEND });

  it('answers a preflight from CORS_ORIGIN with the origin and credentials allowed', async () => {
    const res = await request(await testApp(corsEnv()))
      .options('/api/auth/login')
      .set('Origin', FRONTEND)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type');
    expect(res.status).to.equal(204);
    expect(res.headers['access-control-allow-origin']).to.equal(FRONTEND);
    expect(res.headers['access-control-allow-credentials']).to.equal('true');
    expect(res.headers['access-control-allow-methods']).to.contain('POST');
    expect(res.headers['access-control-allow-headers']).to.match(/content-type/i);
    expect(res.headers.vary).to.match(/Origin/);
  });

  it('gives a preflight from any other origin no CORS headers at all', async () => {
    const res = await request(await testApp(corsEnv()))
      .options('/api/auth/login')
      .set('Origin', 'https://evil.example.test')
      .set('Access-Control-Request-Method', 'POST');
    expect(res.headers).not.to.have.property('access-control-allow-origin');
    expect(res.headers).not.to.have.property('access-control-allow-credentials');
    expect(res.headers).not.to.have.property('access-control-allow-methods');
    expect(res.headers.vary).to.match(/Origin/);
  });

  it('lets the frontend read the headers it needs on an actual request', async () => {
    const res = await request(await testApp(corsEnv()))
      .get('/api/health')
      .set('Origin', FRONTEND);
    expect(res.status).to.equal(200);
    expect(res.headers['access-control-allow-origin']).to.equal(FRONTEND);
    expect(res.headers['access-control-allow-credentials']).to.equal('true');
    expect(res.headers['access-control-expose-headers'])
      .to.match(/X-Request-Id/)
      .and.match(/Retry-After/)
      .and.match(/Content-Disposition/);
  });

  it('allows no origin when CORS_ORIGIN is unset', async () => {
    const res = await request(await testApp())
      .get('/api/health')
      .set('Origin', FRONTEND);
    expect(res.headers).not.to.have.property('access-control-allow-origin');
  });
});

describe('security headers', () => {
  for (const [what, path, status] of [
    ['a success', '/api/health', 200],
    ['an error', '/api/does-not-exist', 404],
  ] as const) {
    it(`are on ${what} response`, async () => {
      const res = await request(await testApp()).get(path);
      expect(res.status).to.equal(status);
      expect(res.headers['x-content-type-options']).to.equal('nosniff');
      expect(res.headers['x-frame-options']).to.equal('DENY');
      const csp = res.headers['content-security-policy'];
      expect(csp).to.contain("default-src 'none'").and.contain("frame-ancestors 'none'");
      // A JSON API needs no script or style sources: nothing beyond the deny-all directives.
      expect(csp).not.to.match(/script-src|style-src|'self'/);
      expect(res.headers['referrer-policy']).to.equal('no-referrer');
      expect(res.headers['strict-transport-security']).to.match(/max-age=\d+/);
      expect(res.headers).not.to.have.property('x-powered-by');
      expect(res.headers['content-type']).to.match(/^application\/json/);
    });
  }
});
