import { expect } from 'chai';
import request from 'supertest';
import { sharedMailbox, type SharedMailbox } from '../sharing/helpers.js';
import { auditRecords, freshMailUser, put, uniqueSubject, waitForServerEmails, type MailUser } from '../sending/helpers.js';

/** Signatures per mailbox and member (issue 47), checked where they land: in the message Cyrus delivered. */
describe('signatures: each member of a team mailbox signs with their own', function () {
  this.timeout(90_000);
  let box: SharedMailbox;
  let bob: MailUser;

  before(async () => {
    [box, bob] = await Promise.all([sharedMailbox('sig'), freshMailUser('bob')]);
  });

  const path = () => `/api/email-accounts/${box.accountId}/signature`;

  it('owner and editor keep a signature each; a viewer gets 403, someone the mailbox is not shared with 404', async () => {
    const { app, owner, editor, viewer, outsider } = box;
    const empty = await editor.as(request(app).get(path()));
    expect(empty.status).to.equal(200);
    expect(empty.body.data.signature).to.deep.equal({ emailAccountId: box.accountId, text: '', html: null, updatedAt: null });

    expect((await owner.as(request(app).put(path())).send({ text: 'Majiteľ schránky' })).status).to.equal(200);
    const set = await editor.as(request(app).put(path())).send({ text: 'Editor Ďurko\n+421 900 000 000' });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    expect((await owner.as(request(app).get(path()))).body.data.signature.text).to.equal('Majiteľ schránky');
    expect((await editor.as(request(app).get(path()))).body.data.signature.text).to.equal('Editor Ďurko\n+421 900 000 000');

    for (const res of [await viewer.as(request(app).get(path())), await viewer.as(request(app).put(path())).send({ text: 'x' })]) {
      expect(res.status).to.equal(403);
      expect(res.body.error.code).to.equal('email_account_forbidden');
    }
    for (const res of [await outsider.as(request(app).get(path())), await outsider.as(request(app).put(path())).send({ text: 'x' })]) {
      expect(res.status).to.equal(404);
    }
    const audit = await auditRecords(box.ctx, editor.fixture.user.id, 'email_signature.updated');
    expect(audit.at(-1)!.details).to.deep.include({ emailAccountId: box.accountId, textLength: 29, html: false });
  });

  it('refuses an oversized text or HTML with a Slovak 400, and cleans the HTML through the sanitiser', async () => {
    const { app, editor } = box;
    const long = await editor.as(request(app).put(path())).send({ text: 'x'.repeat(10_001) });
    expect(long.status).to.equal(400);
    expect(long.body.error.details[0]).to.deep.equal({ field: 'text', message: 'Text podpisu môže mať najviac 10000 znakov' });
    const longHtml = await editor.as(request(app).put(path())).send({ text: 'x', html: 'x'.repeat(50_001) });
    expect(longHtml.status).to.equal(400);
    expect(longHtml.body.error.details[0].field).to.equal('html');
    const html = await editor.as(request(app).put(path())).send({ text: 'Editor', html: '<p onclick="steal()">Editor <b>Ďurko</b><script>alert(1)</script></p>' });
    expect(html.status).to.equal(200);
    expect(html.body.data.signature.html).to.equal('<p>Editor <b>Ďurko</b></p>');
  });

  it("the editor's signature arrives below what they send (text and HTML), not the owner's; signature: false leaves it out", async () => {
    const { app, editor } = box;
    expect((await editor.as(request(app).put(path())).send({ text: 'Editor Ďurko\n+421 900 000 000', html: '<p>Editor <b>Ďurko</b></p>' })).status).to.equal(200);
    const subject = uniqueSubject('Podpis');
    const sent = await editor
      .as(request(app).post('/api/emails'))
      .send({ emailAccountId: box.accountId, to: bob.user, subject, text: 'Dobrý deň,\nposielam ponuku.', html: '<p>Dobrý deň</p>' });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    const [delivered] = await waitForServerEmails(bob, subject);
    const text = delivered.bodyValues![delivered.textBody![0].partId!].value;
    expect(text.replace(/\r\n/g, '\n')).to.equal('Dobrý deň,\nposielam ponuku.\n\n-- \nEditor Ďurko\n+421 900 000 000');
    const html = delivered.bodyValues![delivered.htmlBody!.find((p) => p.type === 'text/html')!.partId!].value;
    expect(html).to.include('<p>Dobrý deň</p><div class="crm-signature">-- <br><p>Editor <b>Ďurko</b></p></div>');
    expect(text).not.to.include('Majiteľ');

    const plain = uniqueSubject('Bez podpisu');
    expect(
      (await editor.as(request(app).post('/api/emails')).send({ emailAccountId: box.accountId, to: bob.user, subject: plain, text: 'Len text.', signature: false })).status,
    ).to.equal(201);
    const [unsigned] = await waitForServerEmails(bob, plain);
    expect(unsigned.bodyValues![unsigned.textBody![0].partId!].value.trim()).to.equal('Len text.');
  });

  it('a reply carries the signature too', async () => {
    const { app, ctx, editor, mail } = box;
    const subject = uniqueSubject('Otázka');
    await put(mail, 'INBOX', { from: { name: 'Bob', email: bob.user }, to: mail.user, subject, body: 'Máte čas?', date: new Date(Date.now() - 60_000) });
    expect((await ctx.services.mailSync.syncAccount(box.accountId)).outcome).to.equal('ok');
    const list = await editor.as(
      request(app)
        .get('/api/emails')
        .query({ emailAccountId: box.accountId, search: subject.split(' ').pop() }),
    );
    const original = (list.body.data.items as Array<{ id: string; subject: string }>).find((e) => e.subject === subject)!;
    const reply = await editor.as(request(app).post(`/api/emails/${original.id}/reply`)).send({ text: 'Áno.' });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    const [delivered] = await waitForServerEmails(bob, `Re: ${subject}`);
    expect(delivered.bodyValues![delivered.textBody![0].partId!].value.replace(/\r\n/g, '\n').trimEnd()).to.equal('Áno.\n\n-- \nEditor Ďurko\n+421 900 000 000');
  });
});
