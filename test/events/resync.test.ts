import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import request from 'supertest';
import type { Express } from 'express';
import { createEmailAccount } from '../support/email-factories.js';
import { testApp } from '../support/harness.js';
import { SseClient } from '../support/sse-client.js';
import { requireDatabaseUrl } from '../support/test-env.js';
import { crmUser } from '../sync/helpers.js';

/**
 * The hub's resync (src/events/event-hub.ts, resyncAll): when a stream may have missed events, every
 * open stream is told `resync` (its client reloads what it shows) and then gets the events after it.
 * Here the reason is a gap in the outbox held open longer than the follower waits for it
 * (OutboxFollower: an uncommitted transaction holds an id below events already committed).
 */
describe('live updates: a resync when events may have been missed', function () {
  this.timeout(90_000);
  let app: Express;
  let server: http.Server;
  let base: string;
  const open: SseClient[] = [];

  before(async () => {
    app = await testApp();
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    for (const client of open.splice(0)) client.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('an outbox gap held open too long sends resync (outbox_gap) to the stream, then the events past the gap', async () => {
    const owner = await crmUser();
    const account = await createEmailAccount(owner.fixture.user);
    const client = await SseClient.open(`${base}/api/events`, { Authorization: owner.session.bearer });
    open.push(client);
    const addContact = async (email: string) => {
      const res = await owner.as(request(app).post('/api/contacts')).send({ emailAccountId: account.id, email });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.data.contact.id as string;
    };
    const createdEvent = (id: string) =>
      client.waitFor((e) => e.event === 'contact.created' && (e.data.ids as string[] | undefined)?.includes(id) === true, 30_000, `contact.created of ${id}`);
    // The stream is live (past its start): an event of now reaches it.
    await createdEvent(await addContact(`first-${randomBytes(3).toString('hex')}@example.com`));

    const holder = new pg.Client({ connectionString: requireDatabaseUrl() });
    await holder.connect();
    try {
      // An outbox id taken and not committed: the follower must wait for it before going past it.
      await holder.query('BEGIN');
      await holder.query('INSERT INTO contacts (user_id, email_account_id, email) VALUES ($1, $2, $3)', [
        owner.fixture.user.id,
        account.id,
        `held-${randomBytes(3).toString('hex')}@example.com`,
      ]);
      const past = await addContact(`past-${randomBytes(3).toString('hex')}@example.com`);
      // The follower gives the gap up after its own patience (seconds): a deadline, not a speed.
      const resync = await client.waitFor((e) => e.event === 'resync', 30_000, 'resync');
      expect(resync.data).to.deep.equal({ reason: 'outbox_gap' });
      expect(resync.id, 'a resync is no position to resume from').to.equal(undefined);
      const delivered = await createdEvent(past);
      expect(client.events.indexOf(resync), 'resync before the events past the gap').to.be.below(client.events.indexOf(delivered));
      expect(client.closed).to.equal(false);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
    // After the resync the stream goes on as before.
    await createdEvent(await addContact(`later-${randomBytes(3).toString('hex')}@example.com`));
  });
});
