import { expect } from 'chai';
import type { Express } from 'express';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { testApp, testContext } from '../support/harness.js';
import { countInRole, crmUser, freshMailUser, linkViaApi, uniqueSubject, emailsAfterMarker, markerViaCrm, type CrmUser, type MailUser, sendingWorld } from './helpers.js';

/**
 * The relay's hooks (scripts/jmap/smtp-relay.mjs): a sender named refuse-* is refused at MAIL FROM
 * (554), a recipient named reject-* at RCPT TO (550), tempfail-* with 451.
 */
describe('sending: the mail server refuses, the CRM explains and leaves nothing behind', function () {
  this.timeout(60_000);
  let app: Express;
  let ctx: AppContext;
  let bob: MailUser;

  before(async () => {
    app = await testApp();
    ctx = await testContext();
    bob = await freshMailUser('bob');
  });

  async function linked(prefix: string): Promise<{ mail: MailUser; owner: CrmUser; accountId: string }> {
    const mail = await freshMailUser(prefix);
    const owner = await crmUser();
    return { mail, owner, accountId: await linkViaApi(app, ctx, owner, mail) };
  }

  it('a refused submission is 502 submission_refused, with no draft left and nothing in Sent', async () => {
    const { mail, owner, accountId } = await linked('refuse');
    const subject = uniqueSubject('Odmietnutá');
    const res = await owner.as(request(app).post('/api/emails')).send({ emailAccountId: accountId, to: bob.user, subject, text: 'Toto neodíde.' });
    expect(res.status, JSON.stringify(res.body)).to.equal(502);
    expect(res.body.error).to.include({ code: 'submission_refused', message: 'Poštový server odmietol správu odoslať' });
    expect(await countInRole(mail, 'drafts')).to.equal(0);
    expect(await countInRole(mail, 'sent')).to.equal(0);
    expect(await emailsAfterMarker(bob, subject)).to.have.length(0);
    const [{ n }] = await ctx.db.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM emails WHERE email_account_id = $1', {
      bind: [accountId],
      type: (await import('sequelize')).QueryTypes.SELECT,
    });
    expect(n).to.equal(0);
  });

  it('a rejected recipient is 400 recipient_rejected naming the address; nothing was sent to the others either', async () => {
    const { mail, owner, accountId } = await linked('alice');
    const subject = uniqueSubject('Zlý adresát');
    const rejected = `reject-${randomBytes(3).toString('hex')}@example.test`;
    const res = await owner.as(request(app).post('/api/emails')).send({ emailAccountId: accountId, to: [bob.user, rejected], subject, text: 'Ahoj' });
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body.error.code).to.equal('recipient_rejected');
    expect(res.body.error.message).to.equal(`Poštový server odmietol adresáta ${rejected}`);
    expect(res.body.error.details).to.deep.equal([{ field: 'to', message: `Adresát ${rejected} bol odmietnutý` }]);
    expect(await countInRole(mail, 'drafts')).to.equal(0);
    // The marker comes from the same account: the CRM could send it, so the refusal was the recipient's.
    expect(await emailsAfterMarker(bob, subject, markerViaCrm(app, owner, accountId, bob.user))).to.have.length(0);
  });

  it('a temporary refusal says to try again later; the Idempotency-Key is free for that retry', async () => {
    const { mail, owner, accountId } = await linked('alice');
    const key = `k-${randomBytes(6).toString('hex')}`;
    const post = (to: string) => owner.as(request(app).post('/api/emails')).set('Idempotency-Key', key).send({ emailAccountId: accountId, to, subject: 'Skúška', text: 'x' });
    const first = await post(`tempfail-${randomBytes(3).toString('hex')}@example.test`);
    expect(first.status).to.equal(502);
    expect(first.body.error).to.include({ code: 'submission_refused', message: 'Poštový server správu dočasne odmietol; skúste to o chvíľu znova' });
    expect(await countInRole(mail, 'drafts')).to.equal(0);
    const retry = await post(bob.user);
    expect(retry.status, JSON.stringify(retry.body)).to.equal(201);
  });
});

describe('sending: guards', function () {
  this.timeout(60_000);
  let app: Express;
  let ctx: AppContext;
  let bob: MailUser;
  let owner: CrmUser;
  let accountId: string;

  before(async () => {
    ({ app, ctx, bob, owner, accountId } = await sendingWorld());
  });

  it('rejects bad input with Slovak messages before anything is sent', async () => {
    const post = (body: Record<string, unknown>) => owner.as(request(app).post('/api/emails')).send(body);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ emailAccountId: accountId, to: bob.user }, 'text'],
      [{ emailAccountId: accountId, to: 'not-an-address', text: 'x' }, 'to.0'],
      [{ emailAccountId: accountId, text: 'x' }, 'to'],
      [{ to: bob.user, text: 'x' }, 'emailAccountId'],
      [{ emailAccountId: accountId, to: bob.user, text: 'x', from: 'boss@example.test' }, ''],
      [{ emailAccountId: accountId, to: Array.from({ length: 101 }, (_, i) => `r${i}@example.test`), text: 'x' }, 'to'],
    ];
    for (const [body, field] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.code).to.equal('validation_failed');
      if (field)
        expect(
          res.body.error.details.map((d: { field: string }) => d.field),
          JSON.stringify(res.body),
        ).to.include(field);
    }
    const badKey = await owner.as(request(app).post('/api/emails')).set('Idempotency-Key', 'a b').send({ emailAccountId: accountId, to: bob.user, text: 'x' });
    expect(badKey.status).to.equal(400);
  });

  it("another user's account or email is 404, never sent from", async () => {
    const stranger = await crmUser();
    const res = await stranger.as(request(app).post('/api/emails')).send({ emailAccountId: accountId, to: bob.user, text: 'x' });
    expect(res.status).to.equal(404);
    const reply = await stranger.as(request(app).post(`/api/emails/${accountId}/reply`)).send({ text: 'x' });
    expect(reply.status).to.equal(404);
  });

  it('the same Idempotency-Key on another request is 409 idempotency_conflict', async () => {
    const key = `k-${randomBytes(6).toString('hex')}`;
    const first = await owner
      .as(request(app).post('/api/emails'))
      .set('Idempotency-Key', key)
      .send({ emailAccountId: accountId, to: bob.user, subject: uniqueSubject('Kľúč'), text: 'x' });
    expect(first.status).to.equal(201);
    const other = await owner
      .as(request(app).post(`/api/emails/${first.body.data.email.id}/reply`))
      .set('Idempotency-Key', key)
      .send({ text: 'y' });
    expect(other.status).to.equal(409);
    expect(other.body.error.code).to.equal('idempotency_conflict');
  });

  it('two concurrent requests with one Idempotency-Key send once', async () => {
    const key = `k-${randomBytes(6).toString('hex')}`;
    const subject = uniqueSubject('Súbežne');
    const post = () => owner.as(request(app).post('/api/emails')).set('Idempotency-Key', key).send({ emailAccountId: accountId, to: bob.user, subject, text: 'raz' });
    const results = await Promise.all([post(), post(), post()]);
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201).length, JSON.stringify(statuses)).to.be.at.least(1);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      JSON.stringify(statuses),
    ).to.equal(true);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.code).to.equal('idempotency_conflict');
    expect(await emailsAfterMarker(bob, subject, markerViaCrm(app, owner, accountId, bob.user))).to.have.length(1);
  });

  it('limits sends per user (429 with Retry-After and a Slovak message); a replay costs nothing', async () => {
    const limited = await testApp({ SEND_RATE_LIMIT: '2', SEND_RATE_WINDOW_SECONDS: '600' });
    const sender = await crmUser();
    const account = await linkViaApi(limited, ctx, sender, await freshMailUser('alice'));
    const key = `k-${randomBytes(6).toString('hex')}`;
    const keyed = uniqueSubject('Limit');
    // A replay is the same request (same body): another body with the key would be a 409.
    const send = (withKey: boolean) => {
      const req = sender.as(request(limited).post('/api/emails'));
      return (withKey ? req.set('Idempotency-Key', key) : req).send({ emailAccountId: account, to: bob.user, subject: withKey ? keyed : uniqueSubject('Limit'), text: 'x' });
    };
    expect((await send(true)).status).to.equal(201);
    expect((await send(true)).status, 'replay').to.equal(201);
    expect((await send(false)).status).to.equal(201);
    const over = await send(false);
    expect(over.status).to.equal(429);
    expect(over.body.error).to.include({ code: 'rate_limited', message: 'Odoslali ste príliš veľa emailov za krátky čas. Skúste to znova neskôr.' });
    expect(Number(over.headers['retry-after'])).to.be.greaterThan(0);
    // Another user is not affected.
    const other = await crmUser();
    const otherAccount = await linkViaApi(limited, ctx, other, await freshMailUser('alice'));
    const res = await other.as(request(limited).post('/api/emails')).send({ emailAccountId: otherAccount, to: bob.user, subject: uniqueSubject('Iný'), text: 'x' });
    expect(res.status).to.equal(201);
  });
});
