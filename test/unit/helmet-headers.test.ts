import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import express, { type RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import { fixedHelmetHeaders } from '../../src/app/http-head.js';

const OPTIONS: HelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
  },
  xFrameOptions: { action: 'deny' },
};

/**
 * The headers of one GET answered by an express app with `security` in front (x-powered-by left on).
 * Over a Unix socket: the unit tier runs in CI without any network, loopback included.
 */
async function headersWith(security: RequestHandler): Promise<http.IncomingHttpHeaders> {
  const app = express();
  app.use(security);
  app.get('/x', (_req, res) => void res.json({ ok: true }));
  const server = http.createServer(app);
  const socketPath = path.join(os.tmpdir(), `crm-helmet-${process.pid}-${Math.random().toString(36).slice(2)}.sock`);
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  try {
    return await new Promise((resolve, reject) => {
      http
        .get({ socketPath, path: '/x' }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.headers));
        })
        .on('error', reject);
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

const withoutVolatile = (headers: http.IncomingHttpHeaders) => {
  const { date: _date, ...rest } = headers;
  return rest;
};

describe('unit: helmet headers worked out once (src/app/http-head.ts)', () => {
  it('answers with exactly the headers helmet sets per request, X-Powered-By removed as helmet does', async () => {
    const perRequest = await headersWith(helmet(OPTIONS));
    const fixed = await headersWith(fixedHelmetHeaders(OPTIONS));
    expect(withoutVolatile(fixed)).to.deep.equal(withoutVolatile(perRequest));
    expect(fixed['content-security-policy']).to.equal("default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'none'");
    expect(fixed['x-frame-options']).to.equal('DENY');
    expect(fixed).not.to.have.property('x-powered-by');
  });

  it('refuses to start with a directive computed per request (a nonce), rather than freeze one value', () => {
    const perRequest: HelmetOptions = {
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], scriptSrc: [(req) => `'nonce-${String(req.headers.host)}'`] } },
    };
    expect(() => fixedHelmetHeaders(perRequest)).to.throw(/depend on the request/);
  });
});
