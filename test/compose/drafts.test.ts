import { expect } from 'chai';
import type { Express } from 'express';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { startCountingProxy, type CountingProxy } from '../support/counting-proxy.js';
import { testApp } from '../support/harness.js';
import { testJmapSessionUrl } from '../support/imap.js';
import { crmUser, freshMailUser, linkViaApi, sendingWorld, uniqueSubject, waitForServerEmails, type CrmUser, type SendingWorld } from '../sending/helpers.js';

/** Drafts on the server (issue 47): private, sent like compose, kept when the mail server refuses; nothing typed is lost. */
describe('drafts: kept on the server, private, and never lost to a refused send', function () {
  this.timeout(90_000);
  let world: SendingWorld;
  let app: Express;
  let owner: CrmUser;

  before(async () => {
    world = await sendingWorld();
    ({ app, owner } = world);
  });

  const draft = (who: CrmUser, body: Record<string, unknown>) => who.as(request(app).post('/api/drafts')).send(body);

  it('autosaves with PATCH; another user’s draft is a 404 everywhere; a viewer of the mailbox may not keep one (403)', async () => {
    const made = await draft(owner, { emailAccountId: world.accountId, to: `Bob <${world.bob.user}>`, subject: 'Návrh', text: 'Prvá verzia' });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    const id = made.body.data.draft.id as string;
    expect(made.body.data.draft).to.deep.include({ to: [{ email: world.bob.user, name: 'Bob' }], cc: [], replyToEmailId: null, html: null });
    const saved = await owner.as(request(app).patch(`/api/drafts/${id}`)).send({ text: 'Druhá verzia', html: '<p>Druhá</p>' });
    expect(saved.status).to.equal(200);
    expect(saved.body.data.draft).to.include({ subject: 'Návrh', text: 'Druhá verzia', html: '<p>Druhá</p>' });
    expect((await owner.as(request(app).get('/api/drafts'))).body.data.items.map((d: { id: string }) => d.id)).to.include(id);

    const other = await crmUser();
    for (const res of [
      await other.as(request(app).get(`/api/drafts/${id}`)),
      await other.as(request(app).patch(`/api/drafts/${id}`)).send({ text: 'cudzí' }),
      await other.as(request(app).delete(`/api/drafts/${id}`)),
      await other.as(request(app).post(`/api/drafts/${id}/send`)).send({}),
    ]) {
      expect(res.status).to.equal(404);
      expect(res.body.error.message).to.equal('Koncept neexistuje');
    }
    expect((await other.as(request(app).get('/api/drafts'))).body.data.items).to.deep.equal([]);
    expect((await draft(other, { emailAccountId: world.accountId })).status).to.equal(404);

    const viewer = await crmUser();
    const shared = await owner.as(request(app).post(`/api/email-accounts/${world.accountId}/share`)).send({ userId: viewer.fixture.user.id, role: 'viewer' });
    expect(shared.status).to.equal(201);
    const refused = await draft(viewer, { emailAccountId: world.accountId, text: 'x' });
    expect(refused.status).to.equal(403);
    expect(refused.body.error.code).to.equal('email_account_forbidden');

    const bad = await owner.as(request(app).patch(`/api/drafts/${id}`)).send({ subject: 'a\r\nBcc: spy@evil.test' });
    expect(bad.status).to.equal(400);
    expect((await owner.as(request(app).patch(`/api/drafts/${id}`)).send({ text: 'x'.repeat(1_000_001) })).status).to.be.oneOf([400, 413]);
    expect((await owner.as(request(app).delete(`/api/drafts/${id}`))).status).to.equal(204);
    expect((await owner.as(request(app).get(`/api/drafts/${id}`))).status).to.equal(404);
  });

  it('a sent draft arrives at Cyrus and is removed; a replay of its Idempotency-Key answers the first result', async () => {
    const subject = uniqueSubject('Koncept');
    const id = (await draft(owner, { emailAccountId: world.accountId, to: world.bob.user, subject, text: 'Z konceptu.' })).body.data.draft.id as string;
    const key = `d-${randomBytes(6).toString('hex')}`;
    const sent = await owner
      .as(request(app).post(`/api/drafts/${id}/send`))
      .set('Idempotency-Key', key)
      .send({});
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    expect(sent.body.data.sent).to.include({ emailAccountId: world.accountId, recipients: 1 });
    const [delivered] = await waitForServerEmails(world.bob, subject);
    expect(delivered.bodyValues![delivered.textBody![0].partId!].value.trim()).to.equal('Z konceptu.');
    expect((await owner.as(request(app).get(`/api/drafts/${id}`))).status).to.equal(404);
    const replay = await owner
      .as(request(app).post(`/api/drafts/${id}/send`))
      .set('Idempotency-Key', key)
      .send({});
    expect(replay.status).to.equal(201);
    expect(replay.headers['idempotent-replayed']).to.equal('true');
    expect(replay.body.data.sent.messageId).to.equal(sent.body.data.sent.messageId);
  });

  it('a send the mail server refuses keeps the draft; a refused compose answers the draftId of a draft holding the text', async () => {
    const refusing = await crmUser();
    const accountId = await linkViaApi(app, world.ctx, refusing, await freshMailUser('refuse'));
    const id = (await draft(refusing, { emailAccountId: accountId, to: world.bob.user, subject: 'Nepôjde', text: 'Dôležitý text' })).body.data.draft.id as string;
    const res = await refusing.as(request(app).post(`/api/drafts/${id}/send`)).send({});
    expect(res.status, JSON.stringify(res.body)).to.equal(502);
    expect(res.body.error).to.deep.include({ code: 'submission_refused', details: { draftId: id } });
    const kept = await refusing.as(request(app).get(`/api/drafts/${id}`));
    expect(kept.status).to.equal(200);
    expect(kept.body.data.draft).to.include({ subject: 'Nepôjde', text: 'Dôležitý text' });

    const compose = await refusing
      .as(request(app).post('/api/emails'))
      .send({ emailAccountId: accountId, to: world.bob.user, cc: 'cc@example.test', subject: 'Tiež nie', text: 'Napísaný text' });
    expect(compose.status).to.equal(502);
    expect(compose.body.error.code).to.equal('submission_refused');
    const draftId = compose.body.error.details.draftId as string;
    const holding = await refusing.as(request(app).get(`/api/drafts/${draftId}`));
    expect(holding.body.data.draft).to.deep.include({
      emailAccountId: accountId,
      subject: 'Tiež nie',
      text: 'Napísaný text',
      to: [{ email: world.bob.user, name: null }],
      cc: [{ email: 'cc@example.test', name: null }],
    });
  });

  describe('one cause, one error code', () => {
    let proxy: CountingProxy;
    let proxied: Express;

    before(async () => {
      proxy = await startCountingProxy(testJmapSessionUrl());
      proxied = await testApp({ JMAP_SESSION_URL: proxy.sessionUrl });
    });

    after(async () => {
      await proxy?.close();
    });

    it('a submission whose answer is lost is 502 upstream_unavailable, and so is its idempotent retry, with the same draft', async () => {
      proxy.dropAnswer = (r) => r.calls.includes('EmailSubmission/set');
      const key = `u-${randomBytes(6).toString('hex')}`;
      const body = { emailAccountId: world.accountId, to: world.bob.user, subject: uniqueSubject('Neisté'), text: 'Neistý výsledok' };
      const post = () => owner.as(request(proxied).post('/api/emails')).set('Idempotency-Key', key).send(body);
      const first = await post();
      expect(first.status, JSON.stringify(first.body)).to.equal(502);
      expect(first.body.error.code).to.equal('upstream_unavailable');
      const retry = await post();
      expect(retry.status, JSON.stringify(retry.body)).to.equal(502);
      expect(retry.body.error).to.deep.equal(first.body.error);
      const draft = await owner.as(request(app).get(`/api/drafts/${first.body.error.details.draftId}`));
      expect(draft.body.data.draft.text).to.equal('Neistý výsledok');
      proxy.dropAnswer = undefined;
    });
  });
});
