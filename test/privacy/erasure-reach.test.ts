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
});
