import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { testContext } from '../support/harness.js';
import { until } from '../support/poll.js';
import { relayDeliveries } from '../support/relay-log.js';
import { crmUser, sendingWorld, uniqueSubject, waitForServerEmails, type CrmUser, type SendingWorld } from '../sending/helpers.js';

interface Scheduled {
  id: string;
  status: string;
  sendAt: string;
  cancellable: boolean;
  failure: { code: string; message: string } | null;
  draftId: string | null;
  sentEmailId: string | null;
  attachments: Array<{ name: string; type: string; size: number }>;
}

/**
 * Subjects counted at the relay are ASCII: its log has the header as sent (RFC 2047-encoded otherwise).
 *
 * Scheduled send and undo (issue 47) over HTTP against Cyrus and the test SMTP relay. The job of
 * serve is run here by the test (ctx.services.scheduledSends.run(), what the runner does every
 * second); deliveries are counted at the relay, where a message sent twice shows twice.
 */
describe('scheduled send: sendAt, the list, cancel, and exactly one delivery', function () {
  this.timeout(120_000);
  let world: SendingWorld;
  let app: Express;
  let ctx: AppContext;
  let owner: CrmUser;

  before(async () => {
    world = await sendingWorld();
    ({ app, ctx, owner } = world);
  });

  const soon = (ms = 1500) => new Date(Date.now() + ms).toISOString();
  const compose = (who: CrmUser, body: Record<string, unknown>) => who.as(request(app).post('/api/emails')).send({ emailAccountId: world.accountId, ...body });
  const listOf = async (who: CrmUser): Promise<Scheduled[]> => {
    const res = await who.as(request(app).get('/api/scheduled-emails?limit=100'));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data.items as Scheduled[];
  };
  const stateOf = async (who: CrmUser, id: string): Promise<Scheduled> => (await listOf(who)).find((s) => s.id === id)!;
  /** Runs serve's job (as the runner does each second) until the scheduled email is no longer waiting. */
  const runUntilDone = (who: CrmUser, id: string, job = ctx.services.scheduledSends) =>
    until(
      async () => {
        await job.run();
        const s = await stateOf(who, id);
        return s.status === 'sent' || s.status === 'failed' ? s : undefined;
      },
      { what: `scheduled email ${id} sent or failed`, timeoutMs: 60_000, intervalMs: 200 },
    );

  it('compose with sendAt answers 202 with data.scheduled, is listed, and goes out once at its time', async () => {
    const subject = uniqueSubject('Scheduled');
    const res = await compose(owner, { to: world.bob.user, subject, text: 'Neskôr.', sendAt: soon() });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    const scheduled = res.body.data.scheduled as Scheduled;
    expect(scheduled).to.include({ status: 'scheduled', cancellable: true, failure: null, draftId: null });
    expect(res.body.message).to.equal('Email bol naplánovaný na odoslanie');
    expect((await listOf(owner)).map((s) => s.id)).to.include(scheduled.id);
    // Another user sees none of it.
    const other = await crmUser();
    expect(await listOf(other)).to.deep.equal([]);
    expect((await other.as(request(app).delete(`/api/scheduled-emails/${scheduled.id}`))).status).to.equal(404);

    const done = await runUntilDone(owner, scheduled.id);
    expect(done.status, JSON.stringify(done)).to.equal('sent');
    expect(done.cancellable).to.equal(false);
    const [arrived] = await waitForServerEmails(world.bob, subject);
    expect(arrived.bodyValues![arrived.textBody![0].partId!].value).to.contain('Neskôr.');
    // More runs of the job (and a later scheduled email to show they ran) do not send it again.
    const marker = uniqueSubject('Marker');
    const later = (await compose(owner, { to: world.bob.user, subject: marker, text: 'm', sendAt: soon(500) })).body.data.scheduled as Scheduled;
    await runUntilDone(owner, later.id);
    expect(relayDeliveries(subject)).to.have.length(1);
    const late = await owner.as(request(app).delete(`/api/scheduled-emails/${scheduled.id}`));
    expect(late.status).to.equal(409);
    expect(late.body.error.code).to.equal('scheduled_email_not_cancellable');
  });

  it('a multipart compose with sendAt keeps its file until it goes, and the file arrives', async () => {
    const subject = uniqueSubject('S prílohou neskôr');
    const res = await owner
      .as(request(app).post('/api/emails'))
      .field('emailAccountId', world.accountId)
      .field('to', world.bob.user)
      .field('subject', subject)
      .field('text', 'Príloha ide neskôr.')
      .field('sendAt', soon())
      .attach('attachments', Buffer.from('%PDF-1.4\nplánovaná príloha\n'), { filename: 'zmluva.pdf', contentType: 'application/pdf' });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    const scheduled = res.body.data.scheduled as Scheduled;
    expect(scheduled.attachments).to.have.length(1);
    expect(scheduled.attachments[0]).to.include({ name: 'zmluva.pdf', type: 'application/pdf' });
    expect((await runUntilDone(owner, scheduled.id)).status).to.equal('sent');
    const [arrived] = await waitForServerEmails(world.bob, subject);
    expect(arrived.attachments?.map((a) => a.name)).to.deep.equal(['zmluva.pdf']);
    // Sent: its kept file is let go (the cleanup job removes it).
    const [{ n }] = await ctx.db.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM email_attachment_files WHERE scheduled_email_id = $1', {
      bind: [scheduled.id],
      type: 'SELECT' as never,
    });
    expect(n).to.equal(0);
  });

  it('refuses a sendAt in the past, more than a year ahead, or not a time (400, Slovak), scheduling nothing', async () => {
    const before = (await listOf(owner)).length;
    for (const [sendAt, message] of [
      [new Date(Date.now() - 60_000).toISOString(), 'Čas odoslania (sendAt) nesmie byť v minulosti'],
      [new Date(Date.now() + 400 * 24 * 3600 * 1000).toISOString(), 'Čas odoslania (sendAt) môže byť najviac rok dopredu'],
      ['zajtra', 'Čas odoslania (sendAt) musí byť dátum a čas podľa ISO 8601 s časovou zónou, napr. 2026-12-24T09:00:00+01:00'],
    ]) {
      const res = await compose(owner, { to: world.bob.user, subject: 'x', text: 'x', sendAt });
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(JSON.stringify(res.body.error)).to.contain(message);
    }
    expect((await compose(owner, { to: world.bob.user, text: 'x', sendAt: 12 })).status).to.equal(400);
    expect(await listOf(owner)).to.have.length(before);
  });

  it('cancel before it goes keeps the text as a draft and nothing is delivered; a second cancel is a 409', async () => {
    const subject = uniqueSubject('Cancelled');
    const made = (await compose(owner, { to: world.bob.user, subject, text: 'Toto neodíde.', sendAt: soon(3000) })).body.data.scheduled as Scheduled;
    const cancelled = await owner.as(request(app).delete(`/api/scheduled-emails/${made.id}`));
    expect(cancelled.status, JSON.stringify(cancelled.body)).to.equal(200);
    expect(cancelled.body.data.scheduled).to.include({ status: 'cancelled', cancellable: false });
    const draftId = cancelled.body.data.scheduled.draftId as string;
    const draft = await owner.as(request(app).get(`/api/drafts/${draftId}`));
    expect(draft.body.data.draft).to.include({ subject, text: 'Toto neodíde.' });
    const again = await owner.as(request(app).delete(`/api/scheduled-emails/${made.id}`));
    expect(again.status).to.equal(409);
    expect(again.body.error.message).to.equal('Odoslanie emailu už bolo zrušené');

    // The marker goes after the cancelled one's time and through the same job: had the cancelled one gone, it would have first.
    const marker = uniqueSubject('Marker after cancel');
    const after = (await compose(owner, { to: world.bob.user, subject: marker, text: 'm', sendAt: soon(3500) })).body.data.scheduled as Scheduled;
    await runUntilDone(owner, after.id);
    expect(relayDeliveries(marker)).to.have.length(1);
    expect(relayDeliveries(subject)).to.have.length(0);
    expect((await stateOf(owner, made.id)).status).to.equal('cancelled');
  });

  it('a draft sent with sendAt moves into the schedule (202) and goes; a viewer may not schedule (403)', async () => {
    const subject = uniqueSubject('Koncept neskôr');
    const id = (await owner.as(request(app).post('/api/drafts')).send({ emailAccountId: world.accountId, to: world.bob.user, subject, text: 'Z konceptu neskôr.' })).body.data.draft
      .id as string;
    const res = await owner.as(request(app).post(`/api/drafts/${id}/send`)).send({ sendAt: soon() });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    expect((await owner.as(request(app).get(`/api/drafts/${id}`))).status).to.equal(404);
    expect((await runUntilDone(owner, res.body.data.scheduled.id as string)).status).to.equal('sent');
    await waitForServerEmails(world.bob, subject);

    const viewer = await crmUser();
    await owner.as(request(app).post(`/api/email-accounts/${world.accountId}/share`)).send({ userId: viewer.fixture.user.id, role: 'viewer' });
    const refused = await compose(viewer, { to: world.bob.user, subject: 'x', text: 'x', sendAt: soon() });
    expect(refused.status).to.equal(403);
    expect(await listOf(viewer)).to.deep.equal([]);
  });

  it('does not go when its user is disabled or loses the send right before sendAt; the list says why', async () => {
    const member = await crmUser();
    const share = await owner.as(request(app).post(`/api/email-accounts/${world.accountId}/share`)).send({ userId: member.fixture.user.id, role: 'editor', canSend: true });
    expect(share.status, JSON.stringify(share.body)).to.equal(201);
    const lostSubject = uniqueSubject('Right lost');
    const lost = (await compose(member, { to: world.bob.user, subject: lostSubject, text: 'x', sendAt: soon(2000) })).body.data.scheduled as Scheduled;
    const changed = await owner.as(request(app).patch(`/api/email-accounts/${world.accountId}/share/${member.fixture.user.id}`)).send({ canSend: false });
    expect(changed.status, JSON.stringify(changed.body)).to.equal(200);

    const leaver = await crmUser();
    await owner.as(request(app).post(`/api/email-accounts/${world.accountId}/share`)).send({ userId: leaver.fixture.user.id, role: 'editor', canSend: true });
    const disabledSubject = uniqueSubject('Disabled');
    const gone = (await compose(leaver, { to: world.bob.user, subject: disabledSubject, text: 'x', sendAt: soon(2000) })).body.data.scheduled as Scheduled;
    await ctx.services.userLifecycle.disable(leaver.fixture.user.id, { actor: 'test' });

    const lostState = await runUntilDone(member, lost.id);
    expect(lostState.status).to.equal('failed');
    expect(lostState.failure).to.deep.equal({ code: 'send_right_lost', message: 'Odosielateľ už nemá právo odosielať z tejto schránky; email nebol odoslaný' });
    // The disabled user cannot sign in: their list is read through the service the route uses.
    const goneState = await until(
      async () => {
        await ctx.services.scheduledSends.run();
        const s = await ctx.services.scheduledEmails.get(leaver.fixture.user.id, gone.id);
        return s.status === 'failed' ? s : undefined;
      },
      { what: 'the disabled user’s send failed', timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(goneState.failureCode).to.equal('user_disabled');

    const marker = uniqueSubject('Marker rights');
    const after = (await compose(owner, { to: world.bob.user, subject: marker, text: 'm', sendAt: soon(500) })).body.data.scheduled as Scheduled;
    await runUntilDone(owner, after.id);
    expect(relayDeliveries(lostSubject)).to.have.length(0);
    expect(relayDeliveries(disabledSubject)).to.have.length(0);
  });

  it('two instances running the job at once send each scheduled email once', async () => {
    const other = await testContext({ LOG_LEVEL: 'error' });
    const subjects = [0, 1, 2, 3, 4].map((i) => uniqueSubject(`Two instances ${i}`));
    const ids: string[] = [];
    for (const subject of subjects) {
      const res = await compose(owner, { to: world.bob.user, subject, text: 'raz', sendAt: soon(1000) });
      expect(res.status).to.equal(202);
      ids.push(res.body.data.scheduled.id as string);
    }
    await until(
      async () => {
        await Promise.all([ctx.services.scheduledSends.run(), other.services.scheduledSends.run(), ctx.services.scheduledSends.run(), other.services.scheduledSends.run()]);
        const states = await Promise.all(ids.map((id) => stateOf(owner, id)));
        return states.every((s) => s.status === 'sent');
      },
      { what: 'every scheduled email sent', timeoutMs: 60_000, intervalMs: 100 },
    );
    for (const subject of subjects) expect(relayDeliveries(subject), subject).to.have.length(1);
  });
});
