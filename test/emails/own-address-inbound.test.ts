import { expect } from 'chai';
import request from 'supertest';
import { put } from '../sync/helpers.js';
import { awaitingItems, awaitingWorld, fromBob, hoursAgo, newMessageId, sync, uniqueSubject, type AwaitingWorld } from './awaiting-reply-helpers.js';

/**
 * Issue 52 finding 10: anyone can write a message whose From is the mailbox's own address. Placed in
 * the INBOX (not sent through the CRM, not in the Sent mailbox) it is not the staff's answer: the
 * thread still waits for a reply and its To/Cc do not become contacts.
 */
describe('an inbound message that claims the mailbox’s own address as From', function () {
  this.timeout(120_000);
  let w: AwaitingWorld;

  before(async () => {
    w = await awaitingWorld('ownfrom');
  });

  it('neither ends the wait for a reply nor turns its To and Cc into contacts', async () => {
    const subject = uniqueSubject('Podvrh');
    const question = await fromBob(w, subject, hoursAgo(6));
    await sync(w);
    const before = (await awaitingItems(w)).filter((i) => i.subject === subject);
    expect(before, 'bob’s question waits before the forged answer').to.have.length(1);

    const stranger = `cudzi-${newMessageId().split('@')[0]}@forged.example`;
    const copied = `kopia-${newMessageId().split('@')[0]}@forged.example`;
    await put(w.alice, 'INBOX', {
      from: { name: 'Alica', email: w.alice.user },
      to: stranger,
      cc: copied,
      subject: `Re: ${subject}`,
      body: 'Vybavené.',
      messageId: newMessageId(),
      inReplyTo: question,
      date: hoursAgo(1),
    });
    await sync(w);

    const after = (await awaitingItems(w)).filter((i) => (i.subject as string).endsWith(subject));
    expect(after.map((i) => i.subject)).to.deep.equal([subject]);
    expect(after[0].waitingSince).to.equal(before[0].waitingSince);
    for (const address of [stranger, copied]) {
      const res = await w.owner.as(request(w.app).get('/api/contacts').query({ emailAccountId: w.accountId, search: address }));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data.items.map((c: { email: string }) => c.email)).to.not.include(address);
    }
  });
});
