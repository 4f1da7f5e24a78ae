import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { AuditLog, MailSyncState } from '../../src/models/index.js';
import { CREDENTIAL_LIMITS } from '../../src/email-accounts/credential-throttle.js';
import { sessionFor } from '../support/auth.js';
import { createUser, uniqueName } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { createTestMailUser, testJmapSessionUrl } from '../support/imap.js';
import { startFaultServer, type JmapFault } from './support/jmap-faults.js';

const WRONG = 'Nesprávny email alebo heslo k emailovému účtu';

/** A member with a session; `bearer` for supertest. */
async function member() {
  const fixture = await createUser({ password: `Member-${uniqueName()}-9`, emailSetupSkipped: true });
  return { ...fixture, bearer: (await sessionFor(fixture)).bearer };
}

/**
 * Issue 13 (outside attack): a member could guess another person's mail password through the CRM
 * (POST /api/email-accounts, PATCH, link-email) at the speed of the mail server, never throttled,
 * then read that mailbox in the CRM. Every guess also hit the mail server from the CRM's address.
 */
describe('attack: guessing mail passwords through the CRM', function () {
  this.timeout(120_000);
  let app: Express;

  before(async () => {
    app = await testApp();
  });

  it('POST /api/email-accounts: wrong passwords for one member end in 429 (Retry-After), each failure audited', async () => {
    const attacker = await member();
    // An address no one has: Cyrus answers 401 as for a wrong password. Unique, so no other test shares its counter.
    const target = `${uniqueName('victim')}@example.test`;
    const statuses: number[] = [];
    for (let i = 0; i < CREDENTIAL_LIMITS.perUser.points + 3; i++) {
      const res = await request(app)
        .post('/api/email-accounts')
        .set('Authorization', attacker.bearer)
        .send({ email: target, emailPassword: `guess-${i}` });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers['retry-after'])).to.be.greaterThan(0);
    }
    expect(statuses.slice(0, CREDENTIAL_LIMITS.perUser.points)).to.deep.equal(Array(CREDENTIAL_LIMITS.perUser.points).fill(400));
    expect(statuses.slice(CREDENTIAL_LIMITS.perUser.points)).to.deep.equal([429, 429, 429]);
    const audited = await AuditLog.findAll({ where: { action: 'email_account.credentials_rejected', userId: attacker.user.id }, order: [['id', 'ASC']] });
    expect(audited.filter((r) => (r.details as { statusCode: number }).statusCode === 400)).to.have.length(CREDENTIAL_LIMITS.perUser.points);
    const counted = audited.filter((r) => (r.details as { statusCode: number }).statusCode === 429);
    expect(counted).to.have.length(1);
    expect(counted[0].details).to.include({ count: 3, email: target });

    // link-email and PATCH count on the same budget.
    const link = await request(app).post('/api/auth/link-email').set('Authorization', attacker.bearer).send({ email: target, emailPassword: 'guess-link' });
    expect(link.status).to.equal(429);
  });

  it('one address guessed by several members: the address has a budget of its own', async () => {
    const target = `${uniqueName('victim')}@example.test`;
    const statuses: number[] = [];
    let guess = 0;
    while (guess < CREDENTIAL_LIMITS.perAddress.points + 2) {
      const attacker = await member();
      for (let i = 0; i < 3 && guess < CREDENTIAL_LIMITS.perAddress.points + 2; i++, guess++) {
        const res = await request(app)
          .post('/api/email-accounts')
          .set('Authorization', attacker.bearer)
          .send({ email: target, emailPassword: `guess-${guess}` });
        statuses.push(res.status);
      }
    }
    expect(statuses.at(-1), statuses.join(',')).to.equal(429);
    expect(statuses.filter((s) => s === 400)).to.have.length(CREDENTIAL_LIMITS.perAddress.points);
  });

  it('the owner with the right password is not hindered by a few own typos', async () => {
    const owner = await member();
    const mail = await createTestMailUser('owner');
    for (let i = 0; i < 3; i++) {
      expect(
        (
          await request(app)
            .post('/api/email-accounts')
            .set('Authorization', owner.bearer)
            .send({ email: mail.user, emailPassword: `typo-${i}` })
        ).body.error.message,
      ).to.equal(WRONG);
    }
    const res = await request(app).post('/api/email-accounts').set('Authorization', owner.bearer).send({ email: mail.user, emailPassword: mail.pass });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    await (await testContext()).services.mailSync.whenIdle();
  });

  describe('a mail server that starts refusing the CRM does not take the accounts down', () => {
    let ctx: AppContext;
    const accounts: string[] = [];

    before(async () => {
      ctx = await testContext();
      for (const prefix of ['refused-a', 'refused-b']) {
        const mail = await createTestMailUser(prefix);
        const owner = await createUser();
        const account = await ctx.services.emailAccounts.add(owner.user.id, { email: mail.user, emailPassword: mail.pass }, { actor: 'test' });
        await ctx.services.mailSync.whenIdle();
        expect((await ctx.services.mailSync.syncAccount(account.id)).outcome).to.equal('ok');
        accounts.push(account.id);
      }
    });

    for (const fault of ['refuse-403', 'throttle-429'] as JmapFault[]) {
      it(`${fault}: every account is in error with a backoff (retried by itself), none in auth_failed`, async () => {
        const server = await startFaultServer(fault, testJmapSessionUrl());
        try {
          const refused = await testContext({ JMAP_SESSION_URL: server.sessionUrl, JMAP_TIMEOUT_MS: '1000' });
          for (const id of accounts) {
            const result = await refused.services.mailSync.syncAccount(id);
            expect(result.outcome, JSON.stringify(result)).to.equal('error');
            const state = (await MailSyncState.findOne({ where: { emailAccountId: id } }))!;
            expect(state.status).to.equal('error');
            expect(state.nextAttemptAt!.getTime()).to.be.greaterThan(Date.now());
          }
        } finally {
          await server.close();
        }
        for (const id of accounts) expect((await ctx.services.mailSync.syncAccount(id)).outcome).to.equal('ok');
      });
    }

    it('link-email against a server that refuses the CRM is a 502, not "wrong password", and costs no guess', async () => {
      const server = await startFaultServer('refuse-403', testJmapSessionUrl());
      try {
        const refusedApp = await testApp({ JMAP_SESSION_URL: server.sessionUrl, JMAP_TIMEOUT_MS: '1000' });
        const user = await member();
        for (let i = 0; i < CREDENTIAL_LIMITS.perUser.points + 1; i++) {
          const res = await request(refusedApp)
            .post('/api/email-accounts')
            .set('Authorization', user.bearer)
            .send({ email: `${uniqueName('x')}@example.test`, emailPassword: 'whatever' });
          expect(res.status, JSON.stringify(res.body)).to.equal(502);
        }
      } finally {
        await server.close();
      }
    });
  });
});
