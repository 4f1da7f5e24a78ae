import { expect } from 'chai';
import request from 'supertest';
import { Sequelize } from 'sequelize';
import { createAppContext } from '../../src/app/context.js';
import { AppConfig } from '../../src/config/config.js';
import { createApp } from '../../src/app/http-app.js';
import { createLogger } from '../../src/logging/logger.js';
import { pendingMigrations } from '../../src/db/migrator.js';
import { baseTestEnv, testApp, testContext } from '../support/harness.js';

describe('health', () => {
  it('GET /api/health answers 200 while the process lives', async () => {
    const res = await request(await testApp()).get('/api/health');
    expect(res.status).to.equal(200);
    expect(res.body.success).to.equal(true);
    expect(res.body.data.status).to.equal('ok');
  });

  it('GET /api/health/ready answers 200 when the database is reachable and no migration is pending', async () => {
    // The situation the title names, checked rather than assumed (503 with a migration pending: test/ops/).
    expect(await pendingMigrations((await testContext()).db.sequelize)).to.deep.equal([]);
    const res = await request(await testApp()).get('/api/health/ready');
    expect(res.status).to.equal(200);
    expect(res.body.data.status).to.equal('ready');
  });
});

describe('health with the database down', () => {
  it('GET /api/health/ready answers 503 in the envelope, GET /api/health still 200', async () => {
    // Port 1 on loopback: nothing listens, so every query fails to connect.
    const dead = new Sequelize('postgres://x:y@127.0.0.1:1/none', { logging: false, dialectOptions: { connectionTimeoutMillis: 500 } });
    const config = AppConfig.fromEnv(baseTestEnv());
    const ctx = await createAppContext({ config, logger: createLogger('error', { silent: true }), db: { sequelize: dead, close: async () => {} } });
    const app = createApp(ctx);
    const res = await request(app).get('/api/health/ready');
    expect(res.status).to.equal(503);
    expect(res.body).to.deep.include({ success: false });
    expect(res.body.error.statusCode).to.equal(503);
    expect(res.headers['retry-after']).to.exist;
    expect((await request(app).get('/api/health')).status).to.equal(200);
    await dead.close();
  });
});
