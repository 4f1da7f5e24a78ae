import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { Sql } from '../../src/db/sql.js';
import { sequelizeTransactions } from '../../src/db/transactions.js';
import { FollowUpDueJob } from '../../src/follow-ups/follow-up-due-job.js';
import { FollowUpRepository } from '../../src/follow-ups/follow-up-repository.js';
import { createContact, createEmail } from '../support/email-factories.js';
import { testApp, testContext } from '../support/harness.js';
import { until } from '../support/poll.js';
import { SseClient, type SseEvent } from '../support/sse-client.js';
import type { CrmUser } from '../sync/helpers.js';
import { dueEventsOf, followUpBox, inMinutes, listFollowUps, putFollowUp, type FollowUpBox } from './helpers.js';

/**
 * The due check: a follow-up whose time came is claimed once and announced to its owner's live stream
 * (follow_up.due, through the events outbox), lists under status=due, and is not announced when
 * answered or no longer visible. The job is run directly (as serve's scheduler does every
 * FOLLOW_UP_CHECK_SECONDS), as two "instances": two jobs with their own repositories and connections.
 */
describe('follow-ups: the due check and the follow_up.due event', function () {
  this.timeout(60_000);
  let app: Express;
  let ctx: AppContext;
  let server: http.Server;
  let base: string;
  let box: FollowUpBox;
  const open: SseClient[] = [];
  const job = () => new FollowUpDueJob(new FollowUpRepository(new Sql(ctx.db.sequelize)), sequelizeTransactions(ctx.db.sequelize));

  const stream = async (who: CrmUser) => {
    const client = await SseClient.open(`${base}/api/events`, { Authorization: who.session.bearer });
    expect(client.status).to.equal(200);
    open.push(client);
    return client;
  };
  const dueOf = (contactId: string) => (e: SseEvent) => e.event === 'follow_up.due' && e.data.contactId === contactId;
  const setDue = async (who: CrmUser, contactId: string, dueAt = inMinutes(-1)) => {
    const res = await putFollowUp(app, who, contactId, { dueAt });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data.followUp.id as string;
  };

  before(async () => {
    app = await testApp();
    ctx = await testContext();
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  beforeEach(async () => {
    box = await followUpBox(app);
  });

  afterEach(() => {
    for (const client of open.splice(0)) client.close();
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('a due follow-up reaches its owner once (two jobs at once), not a colleague, and lists under status=due', async () => {
    const [ownerStream, editorStream] = [await stream(box.owner), await stream(box.editor)];
    const id = await setDue(box.owner, box.contact.id);
    for (let round = 0; round < 3; round++) await Promise.all([job().run(), job().run()]);
    const event = await ownerStream.waitFor(dueOf(box.contact.id), 15_000, 'follow_up.due');
    expect(event.data).to.deep.include({ followUpId: id, contactId: box.contact.id, emailAccountId: box.account.id });
    expect(await dueEventsOf(ctx, id)).to.equal(1);

    // Markers down the same path: later follow-ups of each user, announced by a later check.
    const marker = await createContact(box.account);
    await setDue(box.owner, marker.id);
    await setDue(box.editor, marker.id);
    await Promise.all([job().run(), job().run()]);
    await ownerStream.waitFor(dueOf(marker.id), 15_000, "the owner's marker");
    await editorStream.waitFor(dueOf(marker.id), 15_000, "the editor's marker");
    expect(ownerStream.events.filter(dueOf(box.contact.id))).to.have.length(1);
    expect(editorStream.events.filter(dueOf(box.contact.id))).to.have.length(0);
    expect(editorStream.events.filter(dueOf(marker.id)).map((e) => e.data.followUpId)).to.not.include(id);

    const due = await listFollowUps(app, box.owner, '?status=due');
    const listed = due.body.data.items.find((i: { id: string }) => i.id === id);
    expect(listed).to.include({ status: 'due', answered: false });
    expect(listed.notifiedAt).to.be.a('string');
  });

  it('a check that meets a follow-up another check holds skips it: one claim, one event', async () => {
    const id = await setDue(box.owner, box.contact.id);
    const repository = new FollowUpRepository(new Sql(ctx.db.sequelize));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let claimedFirst = 0;
    // The first "instance" claims and holds its transaction open...
    const first = sequelizeTransactions(ctx.db.sequelize).run(async (tx) => {
      claimedFirst = (await repository.claimDue(500, tx)).claimed;
      await gate;
    });
    await until(() => claimedFirst > 0, { what: 'the first claim' });
    // ...while the second checks: the locked row is skipped, not waited for and not claimed again.
    const second = await job().run();
    release();
    await first;
    const third = await job().run();
    expect(second.claimed + third.claimed).to.equal(0);
    expect(await dueEventsOf(ctx, id)).to.equal(1);
  });

  it('an upcoming follow-up is left alone; a PUT after its event makes it due and announced again', async () => {
    const id = await setDue(box.owner, box.contact.id, inMinutes(60));
    await job().run();
    expect(await dueEventsOf(ctx, id)).to.equal(0);
    await setDue(box.owner, box.contact.id, inMinutes(-1));
    await job().run();
    expect(await dueEventsOf(ctx, id)).to.equal(1);
    await setDue(box.owner, box.contact.id, inMinutes(-2));
    await job().run();
    await job().run();
    expect(await dueEventsOf(ctx, id)).to.equal(2);
  });

  it('an answered follow-up (mail from the contact after it was set) is listed as answered and not announced', async () => {
    const id = await setDue(box.owner, box.contact.id);
    const earlier = await createContact(box.account);
    const earlierId = await setDue(box.owner, earlier.id);
    // Mail from the contact after the follow-up was set; for the other contact, mail from before it.
    await createEmail(box.account, box.contact, { from: `Alžbeta <${box.contact.email.toUpperCase()}>`, date: new Date(Date.now() + 60_000) });
    await createEmail(box.account, earlier, { date: new Date(Date.now() - 3_600_000) });
    await job().run();
    expect(await dueEventsOf(ctx, id)).to.equal(0);
    expect(await dueEventsOf(ctx, earlierId)).to.equal(1);
    const items = (await listFollowUps(app, box.owner, '?status=due')).body.data.items as Array<{ id: string; answered: boolean; notifiedAt: string | null }>;
    expect(items.find((i) => i.id === id)).to.include({ answered: true });
    expect(items.find((i) => i.id === id)!.notifiedAt).to.be.a('string');
    expect(items.find((i) => i.id === earlierId)).to.include({ answered: false });
  });

  it('mail sent to the contact (from the mailbox) does not answer it; the viewer without canRead never sees it answered', async () => {
    const id = await setDue(box.owner, box.contact.id, inMinutes(30));
    await createEmail(box.account, box.contact, { from: box.account.email, to: box.contact.email, date: new Date(Date.now() + 60_000) });
    const mine = (await listFollowUps(app, box.owner)).body.data.items as Array<{ id: string; answered: boolean }>;
    expect(mine.find((i) => i.id === id)).to.include({ answered: false });
    await box.owner
      .as(request(app).patch(`/api/email-accounts/${box.account.id}/share/${box.viewer.fixture.user.id}`))
      .send({ canRead: false })
      .expect(200);
    const viewers = await setDue(box.viewer, box.contact.id, inMinutes(30));
    await createEmail(box.account, box.contact, { date: new Date(Date.now() + 120_000) });
    const theirs = (await listFollowUps(app, box.viewer)).body.data.items as Array<{ id: string; answered: boolean }>;
    expect(theirs.find((i) => i.id === viewers)).to.include({ answered: false });
    expect(((await listFollowUps(app, box.owner)).body.data.items as Array<{ id: string; answered: boolean }>).find((i) => i.id === id)).to.include({ answered: true });
  });

  it('a follow-up whose contact is no longer visible to its owner (share revoked) is claimed without an event', async () => {
    const id = await setDue(box.editor, box.contact.id);
    await box.owner.as(request(app).delete(`/api/email-accounts/${box.account.id}/share/${box.editor.fixture.user.id}`)).expect(200);
    const { claimed } = await job().run();
    expect(claimed).to.be.at.least(1);
    expect(await dueEventsOf(ctx, id)).to.equal(0);
  });
});
