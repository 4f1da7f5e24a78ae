import { expect } from 'chai';
import request from 'supertest';
import {
  auditRecords,
  crmUser,
  freshMailUser,
  randomFile,
  sendFromMailUser,
  sendingWorld,
  serverBlob,
  uniqueSubject,
  waitForServerEmails,
  type MailUser,
  type SendingWorld,
} from '../sending/helpers.js';

/** Forward (issue 47): the original quoted, its attachment carried to the recipient's real mailbox. */
describe('forward: the original quoted and its attachment carried, through Cyrus', function () {
  this.timeout(90_000);
  let world: SendingWorld;
  let carol: MailUser;

  before(async () => {
    [world, carol] = await Promise.all([sendingWorld(), freshMailUser('carol')]);
  });

  /** Bob mails alice (the CRM's mailbox) a file; the CRM syncs it. Answers the CRM email's id. */
  async function mailWithFile(subject: string, bytes: Buffer): Promise<string> {
    await sendFromMailUser(world.bob, world.alice.user, subject, { name: 'zmluva.pdf.bin', type: 'application/octet-stream', bytes });
    await waitForServerEmails(world.alice, subject);
    expect((await world.ctx.services.mailSync.syncAccount(world.accountId)).outcome).to.equal('ok');
    const list = await world.owner.as(
      request(world.app)
        .get('/api/emails')
        .query({ emailAccountId: world.accountId, search: subject.split(' ').pop() }),
    );
    const email = (list.body.data.items as Array<{ id: string; subject: string }>).find((e) => e.subject === subject);
    expect(email, JSON.stringify(list.body)).to.exist;
    return email!.id;
  }

  it('arrives as "Fwd: …" with the header block, the original text and the attachment byte for byte', async () => {
    const subject = uniqueSubject('Fwd: Zmluva');
    const bytes = randomFile(300_000);
    const id = await mailWithFile(subject, bytes);
    const res = await world.owner.as(request(world.app).post(`/api/emails/${id}/forward`)).send({ to: carol.user, text: 'Posielam ďalej, pozri prílohu.' });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);

    const forwarded = `Fwd: ${subject.replace(/^Fwd: /, '')}`;
    const [delivered] = await waitForServerEmails(carol, forwarded);
    const text = delivered.bodyValues![delivered.textBody![0].partId!].value.replace(/\r\n/g, '\n');
    expect(text).to.match(/^Posielam ďalej, pozri prílohu\.\n\n---------- Forwarded message ---------\n/);
    expect(text).to.include(`From: ${world.bob.user}\n`);
    expect(text).to.match(/\nDate: \w{3}, \d{2} \w{3} \d{4} /);
    expect(text).to.include(`Subject: ${subject}\n`);
    expect(text).to.include(`To: ${world.alice.user}\n`);
    expect(text).to.include('Posielam súbor zmluva.pdf.bin.');
    expect(delivered.attachments).to.have.length(1);
    expect(delivered.attachments![0].name).to.equal('zmluva.pdf.bin');
    expect((await serverBlob(carol, delivered.attachments![0].blobId!)).equals(bytes)).to.equal(true);
    expect(delivered.inReplyTo ?? null).to.equal(null);

    const [audit] = (await auditRecords(world.ctx, world.owner.fixture.user.id, 'email.send')).filter((r) => r.details.forwarded === id);
    expect(audit.details).to.include({ attachments: 1, recipients: 1 });
  });

  it('rights as reply: someone the mailbox is not shared with gets 404, a viewer 403; "to" is required', async () => {
    const subject = uniqueSubject('Práva');
    const id = await mailWithFile(subject, randomFile(1000));
    const stranger = await crmUser();
    expect((await stranger.as(request(world.app).post(`/api/emails/${id}/forward`)).send({ to: carol.user, text: 'x' })).status).to.equal(404);
    const viewer = await crmUser();
    const share = await world.owner.as(request(world.app).post(`/api/email-accounts/${world.accountId}/share`)).send({ userId: viewer.fixture.user.id, role: 'viewer' });
    expect(share.status).to.equal(201);
    const refused = await viewer.as(request(world.app).post(`/api/emails/${id}/forward`)).send({ to: carol.user, text: 'x' });
    expect(refused.status).to.equal(403);
    expect(refused.body.error.code).to.equal('email_account_forbidden');
    const noTo = await world.owner.as(request(world.app).post(`/api/emails/${id}/forward`)).send({ text: 'x' });
    expect(noTo.status).to.equal(400);
    expect(noTo.body.error.details[0].field).to.equal('to');
  });
});
