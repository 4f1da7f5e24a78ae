import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { sessionFor } from '../support/auth.js';
import { createUser } from '../support/factories.js';
import { AuditLog } from '../../src/models/index.js';
import { testApp, testContext } from '../support/harness.js';

/** /api/admin/webhooks over HTTP: administrators only, the secret shown once, SSRF refused at creation. */
describe('webhooks: administration', function () {
  this.timeout(30_000);

  const adminBearer = async () => (await sessionFor(await createUser({ role: 'admin' }))).bearer;

  it('creates, lists, reads, changes and deletes a webhook; the secret only in the answers that make it', async () => {
    const app = await testApp();
    const bearer = await adminBearer();
    const created = await request(app)
      .post('/api/admin/webhooks')
      .set('Authorization', bearer)
      .send({ url: 'https://erp.example.com/hooks/crm', events: ['contact.created', 'email.created'], description: 'ERP' });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const { webhook, secret } = created.body.data;
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).to.have.length(32);
    expect(created.headers['cache-control']).to.equal('no-store');
    expect(webhook).to.include({ url: 'https://erp.example.com/hooks/crm', enabled: true, description: 'ERP' });
    expect(webhook.events).to.deep.equal(['contact.created', 'email.created']);
    expect(webhook.createdAt).to.be.a('string');

    const one = await request(app).get(`/api/admin/webhooks/${webhook.id}`).set('Authorization', bearer);
    expect(one.status).to.equal(200);
    expect(one.body.data.webhook.id).to.equal(webhook.id);
    expect(JSON.stringify(one.body)).to.not.include(secret.slice(6));
    const list = await request(app).get('/api/admin/webhooks?limit=100').set('Authorization', bearer);
    expect(list.status).to.equal(200);
    expect(list.body.data.items.map((w: { id: string }) => w.id)).to.include(webhook.id);
    expect(JSON.stringify(list.body)).to.not.include(secret.slice(6));

    const patched = await request(app)
      .patch(`/api/admin/webhooks/${webhook.id}`)
      .set('Authorization', bearer)
      .send({ enabled: false, events: ['follow_up.due'] });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    expect(patched.body.data.webhook).to.include({ enabled: false });
    expect(patched.body.data.webhook.events).to.deep.equal(['follow_up.due']);
    expect(patched.body.data.secret).to.equal(undefined);

    const rotated = await request(app).patch(`/api/admin/webhooks/${webhook.id}`).set('Authorization', bearer).send({ rotateSecret: true });
    expect(rotated.status).to.equal(200);
    expect(rotated.body.data.secret)
      .to.match(/^whsec_/)
      .and.not.equal(secret);

    const deliveries = await request(app).get(`/api/admin/webhooks/${webhook.id}/deliveries`).set('Authorization', bearer);
    expect(deliveries.status).to.equal(200);
    expect(deliveries.body.data.items).to.deep.equal([]);

    // Stored sealed, audited without it.
    const ctx = await testContext();
    const [stored] = await ctx.db.sequelize.query<{ secret_sealed: string }>('SELECT secret_sealed FROM webhooks WHERE id = $id', {
      bind: { id: webhook.id },
      type: QueryTypes.SELECT,
    });
    expect(stored.secret_sealed).to.match(/^v2:/).and.not.include(secret.slice(6));

    expect((await request(app).delete(`/api/admin/webhooks/${webhook.id}`).set('Authorization', bearer)).status).to.equal(200);
    expect((await request(app).get(`/api/admin/webhooks/${webhook.id}`).set('Authorization', bearer)).status).to.equal(404);
    const audit = (await AuditLog.findAll({ order: [['id', 'ASC']] })).filter((r) => (r.details as { webhookId?: string } | null)?.webhookId === webhook.id);
    expect(audit.map((r) => r.action)).to.deep.equal(['webhook.created', 'webhook.updated', 'webhook.updated', 'webhook.deleted']);
    expect(audit[2].details).to.deep.include({ secretRotated: true });
    for (const row of audit) {
      expect(JSON.stringify(row.toJSON())).to.not.include(secret.slice(6)).and.not.include(rotated.body.data.secret.slice(6));
    }
  });

  it('refuses unknown events (listing the allowed ones), other schemes and literal private addresses', async () => {
    const app = await testApp();
    const bearer = await adminBearer();
    const post = (body: object) => request(app).post('/api/admin/webhooks').set('Authorization', bearer).send(body);
    const unknown = await post({ url: 'https://erp.example.com/h', events: ['user.deleted'] });
    expect(unknown.status).to.equal(400);
    expect(JSON.stringify(unknown.body)).to.include('contact.created').and.include('follow_up.due');
    for (const url of [
      'ftp://erp.example.com/h',
      'http://127.0.0.1:8080/h',
      'http://169.254.169.254/latest',
      'http://10.0.0.5/h',
      'http://[::1]/h',
      'http://[fd00::1]/h',
      'http://0.0.0.0/h',
    ]) {
      const res = await post({ url, events: ['contact.created'] });
      expect(res.status, url).to.equal(400);
      expect(res.body.error.details[0].field, url).to.equal('url');
    }
  });

  it('a listed private address is accepted (WEBHOOK_ALLOWED_PRIVATE_HOSTS)', async () => {
    const app = await testApp({ WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1,10.1.0.0/16' });
    const bearer = await adminBearer();
    for (const url of ['http://127.0.0.1:9/h', 'http://10.1.2.3/h']) {
      const res = await request(app)
        .post('/api/admin/webhooks')
        .set('Authorization', bearer)
        .send({ url, events: ['contact.created'] });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      await request(app).delete(`/api/admin/webhooks/${res.body.data.webhook.id}`).set('Authorization', bearer);
    }
    const other = await request(app)
      .post('/api/admin/webhooks')
      .set('Authorization', bearer)
      .send({ url: 'http://10.2.0.1/h', events: ['contact.created'] });
    expect(other.status).to.equal(400);
  });

  it('members get 403, anonymous 401', async () => {
    const app = await testApp();
    const member = await sessionFor(await createUser());
    expect((await request(app).get('/api/admin/webhooks').set('Authorization', member.bearer)).status).to.equal(403);
    expect((await request(app).get('/api/admin/webhooks')).status).to.equal(401);
  });
});
