import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { sessionFor } from '../support/auth.js';
import { createContact, createEmail, createEmailAccount } from '../support/email-factories.js';
import { createUser } from '../support/factories.js';
import { testApp, testContext } from '../support/harness.js';
import { binaryParser } from '../timesheets/helpers.js';
import { lines, unzip } from './helpers.js';

/**
 * Issue 52, finding 4: an access request and an erasure reach what staff wrote to or about a person
 * beyond contacts and mail: drafts addressed to them (exported, erased) and the internal comments on
 * the conversations they took part in (exported; docs/personal-data.md says what an erasure does).
 */
describe('privacy: drafts and conversation comments', function () {
  this.timeout(60_000);
  let app: Express;
  let admin: string;

  before(async () => {
    app = await testApp();
    admin = (await sessionFor(await createUser({ role: 'admin' }))).bearer;
  });

  it('a draft addressed to the person and the comments on her conversation are exported; the erasure deletes the draft', async () => {
    const ctx = await testContext();
    const run = randomBytes(4).toString('hex');
    const ana = `ana-${run}@clients.example`;
    const owner = await createUser();
    const session = await sessionFor(owner);
    const box = await createEmailAccount(owner);
    const contact = await createContact(box, { email: ana, name: 'Ana' });
    const email = await createEmail(box, contact, { subject: 'Reklamácia' });
    const [thread] = await ctx.db.sequelize.query<{ id: string }>('SELECT id FROM email_threads WHERE email_account_id = $1 AND thread_id = $2', {
      bind: [box.id, email.threadId],
      type: QueryTypes.SELECT,
    });
    const comment = await request(app).post(`/api/conversations/${thread.id}/comments`).set('Authorization', session.bearer).send({ text: 'Ana je chorá, počkať do piatka' });
    expect(comment.status, JSON.stringify(comment.body)).to.equal(201);
    const draft = await request(app)
      .post('/api/drafts')
      .set('Authorization', session.bearer)
      .send({ emailAccountId: box.id, to: [`Ana <${ana.toUpperCase()}>`], subject: 'Ospravedlnenie', text: 'Milá Ana, ...' });
    expect(draft.status, JSON.stringify(draft.body)).to.equal(201);

    const exported = await request(app).post('/api/admin/privacy/export').set('Authorization', admin).send({ email: ana }).buffer(true).parse(binaryParser);
    expect(exported.status).to.equal(200);
    const files = await unzip(exported.body as Buffer);
    expect(lines(files.get('drafts.jsonl')).map((d) => [d.subject, d.text])).to.deep.equal([['Ospravedlnenie', 'Milá Ana, ...']]);
    expect(lines(files.get('conversation-comments.jsonl')).map((c) => c.text)).to.deep.equal(['Ana je chorá, počkať do piatka']);
    expect(JSON.parse(files.get('summary.json')!)).to.include({ drafts: 1, conversationComments: 1 });

    const erased = await request(app).post('/api/admin/privacy/erase').set('Authorization', admin).send({ email: ana });
    expect(erased.status, JSON.stringify(erased.body)).to.equal(200);
    expect(erased.body.data.erasure).to.include({ drafts: 1 });
    const left = await ctx.db.sequelize.query('SELECT id FROM email_drafts WHERE user_id = $1', { bind: [owner.user.id], type: QueryTypes.SELECT });
    expect(left).to.deep.equal([]);
  });

  it('sends scheduled for later to the person, or answering her mail, are exported and erased; one on its way and one to someone else stay', async () => {
    const ctx = await testContext();
    const run = randomBytes(4).toString('hex');
    const ana = `ana-${run}@clients.example`;
    const owner = await createUser();
    const box = await createEmailAccount(owner);
    const contact = await createContact(box, { email: ana, name: 'Ana' });
    const email = await createEmail(box, contact, { subject: 'Objednávka' });
    // Rows in the shape the scheduling service stores (test/compose/scheduled-send.test.ts covers how they get there).
    const schedule = async (subject: string, request: Record<string, unknown>, extra: { kind?: string; emailId?: string; status?: string } = {}) => {
      const [row] = await ctx.db.sequelize.query<{ id: string }>(
        `INSERT INTO scheduled_emails (user_id, email_account_id, kind, email_id, request, send_at, next_attempt_at, message_id, status)
         VALUES ($1, $2, $3, $4, $5::jsonb, now() + interval '1 day', now() + interval '1 day', $6, $7) RETURNING id`,
        {
          bind: [
            owner.user.id,
            box.id,
            extra.kind ?? 'new',
            extra.emailId ?? null,
            JSON.stringify({ subject, text: `${subject} text`, ...request }),
            `<${randomBytes(6).toString('hex')}@crm.test>`,
            extra.status ?? 'scheduled',
          ],
          type: QueryTypes.SELECT,
        },
      );
      return row.id;
    };
    const toAna = await schedule('Pre Anu', { to: [{ email: ana, name: 'Ana' }], cc: [{ email: 'boss@clients.example' }] });
    const replyToAna = await schedule('Re: Objednávka', {}, { kind: 'reply', emailId: email.id });
    const onItsWay = await schedule('Práve odchádza', { bcc: [{ email: ana }] }, { status: 'sending' });
    const toSomeoneElse = await schedule('Pre Bohuša', { to: [{ email: `bohus-${run}@elsewhere.example` }] });

    const exported = await request(app).post('/api/admin/privacy/export').set('Authorization', admin).send({ email: ana }).buffer(true).parse(binaryParser);
    expect(exported.status).to.equal(200);
    const files = await unzip(exported.body as Buffer);
    expect(
      lines(files.get('scheduled-emails.jsonl'))
        .map((s) => s.id)
        .sort(),
    ).to.deep.equal([toAna, replyToAna, onItsWay].sort());
    expect(JSON.parse(files.get('summary.json')!)).to.include({ scheduledEmails: 3 });

    const erased = await request(app).post('/api/admin/privacy/erase').set('Authorization', admin).send({ email: ana });
    expect(erased.status, JSON.stringify(erased.body)).to.equal(200);
    expect(erased.body.data.erasure).to.include({ scheduledEmails: 2 });
    const left = await ctx.db.sequelize.query<{ id: string }>('SELECT id FROM scheduled_emails WHERE user_id = $1', { bind: [owner.user.id], type: QueryTypes.SELECT });
    expect(left.map((r) => r.id).sort()).to.deep.equal([onItsWay, toSomeoneElse].sort());
  });
});
