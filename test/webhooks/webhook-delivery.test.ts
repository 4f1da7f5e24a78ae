import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { sessionFor } from '../support/auth.js';
import { createContact, createEmailAccount } from '../support/email-factories.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { until } from '../support/poll.js';
import { Sql } from '../../src/db/sql.js';
import { sequelizeTransactions } from '../../src/db/transactions.js';
import { SecretBox } from '../../src/crypto/secret-box.js';
import { DeliveryRepository } from '../../src/webhooks/delivery-repository.js';
import { parsePrivateAllowList } from '../../src/webhooks/webhook-address.js';
import { WebhookDeliveryJob } from '../../src/webhooks/webhook-delivery-job.js';
import { WebhookRepository } from '../../src/webhooks/webhook-repository.js';
import { WebhookSender } from '../../src/webhooks/webhook-sender.js';
import { startGatedReceiver, startReceiver, verifies, type Received } from './helpers.js';

/** The app under test may call the loopback receiver; retries are due at once (0 s waits, two retries). */
const ALLOW = { WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '0,0' };

interface Attempt {
  eventId: string;
  eventType: string;
  deliveryId: string;
  attempt: number;
  deliveryStatus: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  nextRetryAt: string | null;
}

/**
 * Delivery over HTTP to a real receiver on 127.0.0.1, driven through the delivery job's service
 * (what every serve runs each second). Events are real outbox rows: a contact stored by the factory
 * fires the database's contact.created trigger. Other tests' events may reach the receiver too, so
 * each check looks for the contact it made.
 */
describe('webhooks: signed delivery from the events outbox', function () {
  this.timeout(60_000);
  let app: Express;
  let ctx: AppContext;
  let bearer: string;
  let owner: Awaited<ReturnType<typeof createUser>>;

  before(async () => {
    app = await testApp(ALLOW);
    ctx = await testContext(ALLOW);
    owner = await createUser();
    bearer = (await sessionFor(await createUser({ role: 'admin' }))).bearer;
  });

  const createHook = async (url: string) => {
    const res = await request(app)
      .post('/api/admin/webhooks')
      .set('Authorization', bearer)
      .send({ url, events: ['contact.created'] });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.data as { webhook: { id: string; enabled: boolean }; secret: string };
  };
  const newContact = async () => (await createContact(await createEmailAccount(owner))).id;
  const about = (contactId: string) => (r: Received) => r.json.data.ids?.includes(contactId) ?? false;
  const attempts = async (webhookId: string): Promise<Attempt[]> => {
    const res = await request(app).get(`/api/admin/webhooks/${webhookId}/deliveries?limit=100`).set('Authorization', bearer);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data.items as Attempt[];
  };
  const deliverUntil = <T>(check: () => T | Promise<T>, what: string, job = ctx.services.webhookDelivery) =>
    until(
      async () => {
        await job.run();
        return check();
      },
      { what, timeoutMs: 20_000, intervalMs: 100 },
    );
  const remove = (id: string) => request(app).delete(`/api/admin/webhooks/${id}`).set('Authorization', bearer);

  it('POSTs {type, timestamp, data} signed per Standard Webhooks; a 2xx is never delivered again', async () => {
    const receiver = await startReceiver();
    try {
      const { webhook, secret } = await createHook(receiver.url);
      const contactId = await newContact();
      const got = await deliverUntil(() => receiver.got.find(about(contactId)), 'the contact.created delivery');
      expect(got.json.type).to.equal('contact.created');
      expect(Number.isNaN(Date.parse(got.json.timestamp))).to.equal(false);
      expect(got.json.data.ids).to.include(contactId);
      expect(got.id).to.match(/^msg_/);
      expect(Math.abs(Number(got.timestamp) - Date.now() / 1000)).to.be.below(300);
      expect(verifies(secret, got), 'signature').to.equal(true);
      expect(verifies(`whsec_${Buffer.alloc(32).toString('base64')}`, got), 'a wrong secret').to.equal(false);

      const rows = await deliverUntil(async () => {
        const list = await attempts(webhook.id);
        return list.some((a) => a.deliveryStatus === 'delivered') ? list : undefined;
      }, 'the attempt recorded');
      const mine = rows.filter((a) => a.deliveryId === got.id.slice(4));
      expect(mine).to.have.length(1);
      expect(mine[0]).to.include({ eventType: 'contact.created', statusCode: 200, error: null, attempt: 1, nextRetryAt: null });

      // More rounds (and a later event to show they ran): the delivered one does not come again.
      const later = await newContact();
      await deliverUntil(() => receiver.got.find(about(later)), 'the later delivery');
      expect(receiver.got.filter((r) => r.id === got.id)).to.have.length(1);
      await remove(webhook.id);
    } finally {
      await receiver.close();
    }
  });

  it('user.created and user.disabled reach a webhook subscribed to them, written with the change (issue 48)', async () => {
    const receiver = await startReceiver();
    try {
      const hook = await request(app)
        .post('/api/admin/webhooks')
        .set('Authorization', bearer)
        .send({ url: receiver.url, events: ['user.created', 'user.disabled'] });
      expect(hook.status, JSON.stringify(hook.body)).to.equal(201);
      const secret = hook.body.data.secret as string;
      const username = `hooked${Date.now()}`;
      const created = await request(app).post('/api/admin/users').set('Authorization', bearer).send({ username, role: 'member' });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const userId = created.body.data.user.id as string;
      const userOf = (r: Received) => (r.json.data as unknown as { userId?: string }).userId;
      const of = (type: string) => (r: Received) => r.json.type === type && userOf(r) === userId;
      const got = await deliverUntil(() => receiver.got.find(of('user.created')), 'the user.created delivery');
      expect(got.json.data).to.deep.equal({ userId, username, role: 'member' });
      expect(verifies(secret, got)).to.equal(true);
      expect(JSON.stringify(got.json)).not.to.contain('temporaryPassword');

      const disabled = await request(app).post(`/api/admin/users/${userId}/disable`).set('Authorization', bearer).send({});
      expect(disabled.status, JSON.stringify(disabled.body)).to.equal(200);
      const off = await deliverUntil(() => receiver.got.find(of('user.disabled')), 'the user.disabled delivery');
      expect(off.json.data).to.deep.equal({ userId, username });
      // Disabling again changes nothing and announces nothing: a later user's creation is the marker.
      expect((await request(app).post(`/api/admin/users/${userId}/disable`).set('Authorization', bearer).send({})).status).to.equal(200);
      const later = await request(app)
        .post('/api/admin/users')
        .set('Authorization', bearer)
        .send({ username: `${username}x`, role: 'member' });
      await deliverUntil(() => receiver.got.find((r) => r.json.type === 'user.created' && userOf(r) === later.body.data.user.id), 'the marker user.created');
      expect(receiver.got.filter(of('user.disabled'))).to.have.length(1);
      await remove(hook.body.data.webhook.id as string);
    } finally {
      await receiver.close();
    }
  });

  it('two instances running the job at once deliver each event once', async () => {
    const receiver = await startReceiver();
    try {
      const { webhook } = await createHook(receiver.url);
      // A second context: its own services and job, as another serve would have.
      const other = await testContext({ ...ALLOW, LOG_LEVEL: 'error' });
      const contacts = await Promise.all([newContact(), newContact(), newContact(), newContact(), newContact()]);
      await until(
        async () => {
          await Promise.all([ctx.services.webhookDelivery.run(), other.services.webhookDelivery.run(), ctx.services.webhookDelivery.run(), other.services.webhookDelivery.run()]);
          return contacts.every((c) => receiver.got.some(about(c)));
        },
        { what: 'every contact delivered', timeoutMs: 20_000, intervalMs: 100 },
      );
      await Promise.all([ctx.services.webhookDelivery.run(), other.services.webhookDelivery.run()]);
      const ids = receiver.got.map((r) => r.id);
      expect(new Set(ids).size, ids.join(' ')).to.equal(ids.length);
      await remove(webhook.id);
    } finally {
      await receiver.close();
    }
  });

  it('bounds the calls open from one instance across overlapping runs, not the calls one run starts (issue 48)', async () => {
    const receiver = await startGatedReceiver();
    const sql = new Sql(ctx.db.sequelize);
    // The job as serve builds it, with a bound of 3 calls open so that a few rows reach it.
    const job = new WebhookDeliveryJob({
      webhooks: new WebhookRepository(sql),
      deliveries: new DeliveryRepository(sql),
      transactions: sequelizeTransactions(ctx.db.sequelize),
      secretBox: new SecretBox(ctx.config.secrets.encryptionKey, ctx.config.secrets.oldEncryptionKeys),
      sender: new WebhookSender(parsePrivateAllowList(ALLOW.WEBHOOK_ALLOWED_PRIVATE_HOSTS)),
      retrySchedule: [0, 0],
      limits: { maxInFlight: 3, leasingMs: 60_000 },
    });
    try {
      const { webhook } = await createHook(receiver.url);
      const contacts = await Promise.all([newContact(), newContact(), newContact(), newContact(), newContact()]);
      const first = job.run();
      await until(() => receiver.held() === 3, { what: 'three calls held by the receiver', timeoutMs: 20_000, intervalMs: 50 });
      // A tick while those three are open leases nothing, although two more are due.
      expect((await job.run()).attempted).to.equal(0);
      expect(receiver.held()).to.equal(3);
      receiver.release();
      expect((await first).attempted).to.equal(3);
      await deliverUntil(() => contacts.every((c) => receiver.got.some(about(c))), 'every contact delivered', job);
      await remove(webhook.id);
    } finally {
      await receiver.close();
    }
  });

  it('retries a 500 with the same webhook-id until a 2xx; the attempts list shows each', async () => {
    const receiver = await startReceiver((r, seen) => (seen.some((s) => s.id === r.id) ? 204 : 500));
    try {
      const { webhook, secret } = await createHook(receiver.url);
      const contactId = await newContact();
      const both = await deliverUntil(() => {
        const mine = receiver.got.filter(about(contactId));
        return mine.length >= 2 ? mine : undefined;
      }, 'a first attempt and its retry');
      expect(both[1].id).to.equal(both[0].id);
      expect(both[1].body).to.equal(both[0].body);
      expect(verifies(secret, both[1])).to.equal(true);
      const list = await deliverUntil(async () => {
        const rows = (await attempts(webhook.id)).filter((a) => a.deliveryId === both[0].id.slice(4));
        return rows.length === 2 ? rows : undefined;
      }, 'both attempts recorded');
      const [second, first] = list; // newest first
      expect(first).to.include({ attempt: 1, statusCode: 500 });
      expect(first.nextRetryAt).to.be.a('string');
      expect(second).to.include({ attempt: 2, statusCode: 204, deliveryStatus: 'delivered' });
      await remove(webhook.id);
    } finally {
      await receiver.close();
    }
  });

  it('fails a delivery when the retries are used up', async () => {
    const receiver = await startReceiver(() => 503);
    try {
      const { webhook } = await createHook(receiver.url);
      const contactId = await newContact();
      const rows = await deliverUntil(async () => {
        const ids = new Set(receiver.got.filter(about(contactId)).map((r) => r.id.slice(4)));
        const list = (await attempts(webhook.id)).filter((a) => ids.has(a.deliveryId));
        return list.some((a) => a.deliveryStatus === 'failed') ? list : undefined;
      }, 'the delivery failed');
      expect(rows.map((a) => a.attempt).sort()).to.deep.equal([1, 2, 3]);
      expect(rows.find((a) => a.attempt === 3)!.nextRetryAt).to.equal(null);
      await remove(webhook.id);
    } finally {
      await receiver.close();
    }
  });

  it('410 Gone disables the webhook: nothing more is sent', async () => {
    const receiver = await startReceiver(() => 410);
    try {
      const { webhook } = await createHook(receiver.url);
      const contactId = await newContact();
      await deliverUntil(() => receiver.got.find(about(contactId)), 'the first delivery');
      const after = await deliverUntil(async () => {
        const res = await request(app).get(`/api/admin/webhooks/${webhook.id}`).set('Authorization', bearer);
        return res.body.data.webhook.enabled === false ? res.body.data.webhook : undefined;
      }, 'the webhook disabled');
      expect(after.disabledReason).to.include('410');
      const count = receiver.got.length;
      await newContact();
      await ctx.services.webhookDelivery.run();
      await ctx.services.webhookDelivery.run();
      expect(receiver.got.length).to.equal(count);
      await remove(webhook.id);
    } finally {
      await receiver.close();
    }
  });

  it('without the allow list the resolved loopback address is refused at delivery time', async () => {
    const receiver = await startReceiver();
    try {
      // Created where 127.0.0.1 is allowed, delivered by an instance that does not allow it.
      const { webhook } = await createHook(receiver.url.replace('127.0.0.1', 'localhost'));
      const strict = await testContext({ WEBHOOK_RETRY_SCHEDULE: '0,0' });
      await newContact();
      const rows = await deliverUntil(
        async () => {
          const list = await attempts(webhook.id);
          return list.length > 0 ? list : undefined;
        },
        'a refused attempt',
        strict.services.webhookDelivery,
      );
      expect(rows[0].statusCode).to.equal(null);
      expect(rows[0].error).to.match(/refused/);
      expect(receiver.got).to.have.length(0);
      await remove(webhook.id);
    } finally {
      await receiver.close();
    }
  });
});
