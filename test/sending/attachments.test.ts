import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import type { AppContext } from '../../src/app/context.js';
import { closedPortUrl } from '../sync/helpers.js';
import { binaryParser } from '../timesheets/helpers.js';
import { testApp } from '../support/harness.js';
import {
  crmUser,
  randomFile,
  sendFromMailUser,
  sendingWorld,
  serverBlob,
  uniqueSubject,
  waitForServerEmails,
  emailsAfterMarker,
  markerViaCrm,
  type CrmUser,
  type MailUser,
} from './helpers.js';

describe('sending: attachments both ways', function () {
  this.timeout(60_000);
  let app: Express;
  let ctx: AppContext;
  let alice: MailUser;
  let bob: MailUser;
  let owner: CrmUser;
  let accountId: string;

  before(async () => {
    ({ app, ctx, alice, bob, owner, accountId } = await sendingWorld());
  });

  /** Bob sends alice a file through the real SMTP hop; the CRM syncs; answers the CRM email detail. */
  async function fileFromBob(name: string, bytes: Buffer, type = 'application/octet-stream') {
    const subject = uniqueSubject('Súbor');
    await sendFromMailUser(bob, alice.user, subject, { name, type, bytes });
    await waitForServerEmails(alice, subject);
    expect((await ctx.services.mailSync.syncAccount(accountId)).outcome).to.equal('ok');
    const list = await owner.as(request(app).get('/api/emails')).query({ emailAccountId: accountId, search: subject.split(' ').pop() });
    const item = (list.body.data.items as Array<{ id: string; subject: string }>).find((e) => e.subject === subject);
    expect(item, JSON.stringify(list.body)).to.exist;
    const detail = await owner.as(request(app).get(`/api/emails/${item!.id}`));
    expect(detail.status).to.equal(200);
    return (detail.body.data.email ?? detail.body.data) as { id: string; attachments: Array<{ id: string; name: string; type: string; size: number; inline: boolean }> };
  }

  it('an attachment sent from bob is listed in the email detail and downloads byte-identical', async () => {
    const bytes = randomFile(300_000);
    const email = await fileFromBob('Výkaz č. 7.bin', bytes);
    expect(email.attachments).to.have.length(1);
    const [listed] = email.attachments;
    expect(listed).to.include({ name: 'Výkaz č. 7.bin', type: 'application/octet-stream', size: bytes.length, inline: false });

    const res = await owner
      .as(request(app).get(`/api/emails/${email.id}/attachments/${listed.id}`))
      .buffer(true)
      .parse(binaryParser);
    expect(res.status).to.equal(200);
    expect(Buffer.compare(res.body as Buffer, bytes)).to.equal(0);
    expect(res.headers['content-type']).to.equal('application/octet-stream');
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.headers['content-disposition']).to.equal(`attachment; filename="Vykaz c. 7.bin"; filename*=UTF-8''V%C3%BDkaz%20%C4%8D.%207.bin`);
    expect(res.headers['cache-control']).to.include('no-store');
  });

  it('another user cannot list or download it (404), a missing blob is 404 and a mail server outage 502', async () => {
    const email = await fileFromBob('data.bin', randomFile(2_000));
    const attachmentId = email.attachments[0].id;
    const path = `/api/emails/${email.id}/attachments/${attachmentId}`;

    const stranger = await crmUser();
    const foreign = await stranger.as(request(app).get(path));
    expect(foreign.status).to.equal(404);

    const unknown = await owner.as(request(app).get(`/api/emails/${email.id}/attachments/00000000-0000-4000-8000-000000000000`));
    expect(unknown.status).to.equal(404);

    const down = await testApp({ JMAP_SESSION_URL: await closedPortUrl() });
    const outage = await owner.as(request(down).get(path));
    expect(outage.status).to.equal(502);
    expect(outage.body.error.code).to.equal('upstream_unavailable');

    await ctx.db.sequelize.query("UPDATE email_attachments SET blob_id = 'Gffffffffffffffffffffffffffffffffffffffff' WHERE id = $1", { bind: [attachmentId] });
    const missing = await owner.as(request(app).get(path));
    expect(missing.status).to.equal(404);
    expect(missing.body.error.message).to.equal('Príloha sa na poštovom serveri už nenachádza');
  });

  it("an attachment sent from the CRM arrives in bob's mailbox byte-identical", async () => {
    const bytes = randomFile(700_000);
    const subject = uniqueSubject('Príloha z CRM');
    const res = await owner
      .as(request(app).post('/api/emails'))
      .field('emailAccountId', accountId)
      .field('to', bob.user)
      .field('subject', subject)
      .field('text', 'V prílohe posielam zmluvu.')
      .attach('attachments', bytes, { filename: 'zmluva č.1.bin', contentType: 'application/octet-stream' })
      .attach('attachments', Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n'), { filename: 'list.pdf', contentType: 'application/pdf' });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.email.attachments.map((a: { name: string }) => a.name)).to.deep.equal(['zmluva č.1.bin', 'list.pdf']);

    const [atBob] = await waitForServerEmails(bob, subject);
    const parts = atBob.attachments ?? [];
    expect(parts.map((p) => p.name)).to.deep.equal(['zmluva č.1.bin', 'list.pdf']);
    expect(parts[1].type).to.equal('application/pdf');
    expect(Buffer.compare(await serverBlob(bob, parts[0].blobId!), bytes)).to.equal(0);
  });

  it('refuses an executable, also one disguised by its name, and sends nothing', async () => {
    const subject = uniqueSubject('Program');
    const windowsProgram = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(58), Buffer.from([0x80, 0, 0, 0]), Buffer.alloc(64), Buffer.from('PE\0\0'), randomFile(4_000)]);
    for (const filename of ['faktura.pdf', 'setup.exe']) {
      const res = await owner
        .as(request(app).post('/api/emails'))
        .field('emailAccountId', accountId)
        .field('to', bob.user)
        .field('subject', subject)
        .field('text', 'x')
        .attach('attachments', filename === 'setup.exe' ? randomFile(100) : windowsProgram, { filename, contentType: 'application/pdf' });
      expect(res.status, `${filename}: ${JSON.stringify(res.body)}`).to.equal(400);
      expect(res.body.error.code).to.equal('attachment_not_allowed');
    }
    expect(await emailsAfterMarker(bob, subject, markerViaCrm(app, owner, accountId, bob.user))).to.have.length(0);
  });

  it('the text fields must come before the files, and a form over the limit is 413', async () => {
    const early = await owner
      .as(request(app).post('/api/emails'))
      .attach('attachments', randomFile(10), { filename: 'a.bin' })
      .field('emailAccountId', accountId)
      .field('to', bob.user)
      .field('text', 'x');
    expect(early.status).to.equal(400);
    expect(early.body.error.message).to.equal('Textové polia formulára (adresáti, predmet, text...) uveďte pred prílohami');

    const small = await testApp({ SEND_MAX_TOTAL_BYTES: '100000' });
    const big = await owner
      .as(request(small).post('/api/emails'))
      .field('emailAccountId', accountId)
      .field('to', bob.user)
      .field('text', 'x')
      .attach('attachments', randomFile(60_000), { filename: 'a.bin' })
      .attach('attachments', randomFile(60_000), { filename: 'b.bin' });
    expect(big.status, JSON.stringify(big.body)).to.equal(413);
    expect(big.body.error.code).to.equal('payload_too_large');
  });

  it('a form is judged by the JSON body\'s rules: 30 `to` parts send, 101 or 150 are the JSON body\'s "too many recipients" (issue 34)', async () => {
    const form = (count: number, address: (i: number) => string) => {
      let req = owner.as(request(app).post('/api/emails')).field('emailAccountId', accountId).field('subject', uniqueSubject('Veľa adresátov')).field('text', 'x');
      for (let i = 0; i < count; i++) req = req.field('to', address(i));
      return req.attach('attachments', randomFile(10), { filename: 'a.bin' });
    };
    const thirty = await form(30, () => bob.user);
    expect(thirty.status, JSON.stringify(thirty.body)).to.equal(201);
    for (const count of [101, 150]) {
      const res = await form(count, (i) => `r${i}@example.test`);
      expect(res.status, `${count}: ${JSON.stringify(res.body)}`).to.equal(400);
      expect(res.body.error.code).to.equal('validation_failed');
      expect(res.body.error.message).to.equal('Najviac 100 adresátov spolu');
    }
  });
});
