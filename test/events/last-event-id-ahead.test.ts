import { expect } from 'chai';
import request from 'supertest';
import { Sql } from '../../src/db/sql.js';
import { PgListener } from '../../src/db/pg-listener.js';
import { EmailAccountMemberRepository } from '../../src/email-accounts/member-repository.js';
import { EventHub } from '../../src/events/event-hub.js';
import type { EventSink } from '../../src/events/event-sink.js';
import { OutboxRepository } from '../../src/events/outbox-repository.js';
import { createEmailAccount } from '../support/email-factories.js';
import { until } from '../support/poll.js';
import { sharedMailbox, share, type SharedMailbox } from '../sharing/helpers.js';
import { crmUser, type CrmUser } from '../sync/helpers.js';

/** What a stream was sent, in order. */
class RecordingSink implements EventSink {
  readonly sent: Array<{ id: number | null; type: string; data: { emailAccountId?: string; ids?: string[] } }> = [];
  private readonly closers: Array<() => void> = [];
  open(): void {}
  send(id: number | null, type: string, data: unknown): boolean {
    this.sent.push({ id, type, data: data as { emailAccountId?: string } });
    return true;
  }
  comment(): boolean {
    return true;
  }
  close(): void {
    for (const c of this.closers.splice(0)) c();
  }
  onClose(listener: () => void): void {
    this.closers.push(listener);
  }
}

/**
 * Issue 35, item 7. A stream whose Last-Event-ID is ahead of this instance's position skips the events
 * up to it: the client saw them elsewhere. The stream's rights are read from the database first, the
 * outbox's bounds after. A membership change committed between the two reads, with an id the
 * Last-Event-ID covers, was skipped outright: the rights kept an account the user had just been
 * removed from, and its email events kept coming. Only a Last-Event-ID the client made up (or one
 * served by an instance that gave up waiting for a long transaction) covers such a change; the
 * stream now applies every membership change of its user, skipped or not, and only skips sending.
 */
describe('live updates: a Last-Event-ID ahead of this instance skips no membership change', function () {
  this.timeout(60_000);
  let box: SharedMailbox;
  let member: CrmUser;
  let hub: EventHub;
  let ownAccount: string;

  before(async () => {
    box = await sharedMailbox('events-ahead');
    member = await crmUser();
    expect((await share(box, member, { role: 'editor' })).status).to.equal(201);
    ownAccount = (await createEmailAccount(member.fixture.user)).id;
  });

  after(async () => {
    await hub?.close();
  });

  /** A contact in the member's own account: an event the member's stream gets, after everything before it. */
  const marker = async (tag: string) => {
    const res = await member.as(request(box.app).post('/api/contacts')).send({ emailAccountId: ownAccount, email: `${tag}-${Date.now()}@example.com` });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.data.contact.id as string;
  };

  it('an unshare committed between the rights read and the outbox read still narrows the stream', async () => {
    const { sequelize } = box.ctx.db;
    const sql = new Sql(sequelize);
    const outbox = new OutboxRepository(sql);
    const members = new EmailAccountMemberRepository(sql);
    let hooked = false;
    hub = new EventHub({
      outbox,
      // The hook between the two reads: the rights are read (the member still has the account), then
      // the owner removes the member (one committed membership.changed) and three more events follow.
      memberships: async (userId) => {
        const rights = await members.membershipsOf(userId);
        if (!hooked) {
          hooked = true;
          const removed = await box.owner.as(request(box.app).delete(`/api/email-accounts/${box.accountId}/share/${member.fixture.user.id}`));
          expect(removed.status).to.equal(200);
          for (let i = 0; i < 3; i++) await marker('between');
        }
        return rights;
      },
      session: () => Promise.resolve({ expiresAt: new Date(Date.now() + 3600_000) }),
      listen: (channels, handlers) => new PgListener(sequelize, channels, handlers, undefined, 'events-test'),
      maxStreamsPerUser: 5,
    });
    expect((await members.membershipsOf(member.fixture.user.id)).has(box.accountId)).to.equal(true);

    // The outbox's last id now; the unshare in the hook gets the next one, the markers those after it.
    // A Last-Event-ID two past it covers the unshare and is no newer than what the outbox has then.
    const { last } = await outbox.bounds();
    const sink = new RecordingSink();
    await hub.subscribe({ userId: member.fixture.user.id, sessionId: 'test' }, String(last + 2), sink);
    expect(hooked).to.equal(true);

    // A change in the account after the unshare: the former member must not get it.
    const list = await box.owner.as(request(box.app).get(`/api/emails?emailAccountId=${box.accountId}`));
    const emailId = list.body.data.items[0].id as string;
    const patched = await box.owner.as(request(box.app).patch(`/api/emails/${emailId}`)).send({ isRead: !list.body.data.items[0].isRead });
    expect(patched.status).to.equal(200);
    const after = await marker('after');
    await until(() => sink.sent.some((e) => e.type === 'contact.created' && e.data.ids?.includes(after)), { what: 'the marker after the email change' });

    expect(sink.sent.filter((e) => e.data.emailAccountId === box.accountId).map((e) => e.type)).to.deep.equal([]);
  });
});
