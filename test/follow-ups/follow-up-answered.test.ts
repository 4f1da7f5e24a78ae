import { expect } from 'chai';
import request from 'supertest';
import { testApp, testContext } from '../support/harness.js';
import { until } from '../support/poll.js';
import { crmUser, freshMailUser, linkViaApi, put } from '../sync/helpers.js';
import { listFollowUps, putFollowUp } from './helpers.js';

const ALICE = { name: 'Alica Odpovedná', email: 'alica.odpoved@clients.example' };

/**
 * "answered" through the real mail path: messages put into the mailbox on Cyrus and stored by a real
 * sync. Mail from the contact dated before the follow-up was set (even if it arrives later) does not
 * answer it; mail from the contact dated after it does.
 */
describe('follow-ups: answered by mail from the contact (real sync)', function () {
  this.timeout(60_000);

  it('mail from before the follow-up leaves it open; a reply after it marks it answered', async () => {
    const app = await testApp();
    const ctx = await testContext();
    const mail = await freshMailUser('followup');
    const me = { name: 'Schránka', email: mail.user };
    await put(mail, 'INBOX', { from: ALICE, to: me, subject: 'Dopyt', body: 'Dobrý deň', date: new Date(Date.now() - 86_400_000) });
    const owner = await crmUser();
    const accountId = await linkViaApi(app, ctx, owner, mail);
    const contacts = await owner.as(request(app).get(`/api/contacts?emailAccountId=${accountId}`));
    const contact = contacts.body.data.items.find((c: { email: string }) => c.email === ALICE.email);
    expect(contact, JSON.stringify(contacts.body)).to.not.equal(undefined);

    const set = await putFollowUp(app, owner, contact.id, { dueAt: new Date(Date.now() + 3_600_000).toISOString(), note: 'Čakám na odpoveď' });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    const setAt = new Date(set.body.data.followUp.updatedAt as string).getTime();
    const sync = async () => {
      const res = await owner.as(request(app).post(`/api/email-accounts/${accountId}/sync`));
      expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 202]);
      await ctx.services.mailSync.whenIdle();
    };
    const stored = async (subject: string) => {
      const res = await owner.as(request(app).get(`/api/emails?contactId=${contact.id}`));
      return (res.body.data.items as Array<{ subject: string }>).some((e) => e.subject === subject);
    };
    const answered = async () => {
      const res = await listFollowUps(app, owner);
      return (res.body.data.items as Array<{ contactId: string; answered: boolean }>).find((i) => i.contactId === contact.id)!.answered;
    };

    // Arrives now, but was written before the follow-up was set.
    await put(mail, 'INBOX', { from: ALICE, to: me, subject: 'Staršia správa', body: 'Z minulého týždňa', date: new Date(setAt - 60_000) });
    await sync();
    expect(await stored('Staršia správa')).to.equal(true);
    expect(await answered()).to.equal(false);

    await put(mail, 'INBOX', { from: ALICE, to: me, subject: 'Re: Dopyt', body: 'Posielam odpoveď', date: new Date(setAt + 2_000) });
    await sync();
    expect(await stored('Re: Dopyt')).to.equal(true);
    expect(await answered()).to.equal(true);

    // Set again (once the reply's date is past): answered counts from the new setting.
    await until(() => Date.now() > setAt + 3_000, { what: "the reply's date to be past", timeoutMs: 5_000, intervalMs: 100 });
    const again = await putFollowUp(app, owner, contact.id, { dueAt: new Date(Date.now() + 7_200_000).toISOString() });
    expect(again.body.data.followUp.answered).to.equal(false);
  });
});
