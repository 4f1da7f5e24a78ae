/**
 * Issue 26 (Info): an Idempotency-Key reused with another body replayed the first answer (the
 * second message silently never went out). The key now stands for the request's content too:
 * another body is a 409 idempotency_conflict; the same content (any key order, any multipart
 * boundary) is still answered from the first result without sending again.
 */
import { expect } from 'chai';
import type { Express } from 'express';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { randomFile, sendingWorld, uniqueSubject, emailsAfterMarker, markerViaCrm, type CrmUser, type MailUser } from '../sending/helpers.js';

describe('attacks: an Idempotency-Key reused with another body (issue 26)', function () {
  this.timeout(60_000);
  let app: Express;
  let bob: MailUser;
  let owner: CrmUser;
  let accountId: string;

  before(async () => {
    ({ app, bob, owner, accountId } = await sendingWorld());
  });

  it('JSON: the same content is replayed, another body is 409 and is not sent', async () => {
    const key = `k-${randomBytes(6).toString('hex')}`;
    const subject = uniqueSubject('Kluc');
    const post = (body: object) => owner.as(request(app).post('/api/emails')).set('Idempotency-Key', key).send(body);
    const first = await post({ emailAccountId: accountId, to: [bob.user], subject, text: 'Prvá' });
    expect(first.status, JSON.stringify(first.body)).to.equal(201);

    const same = await post({ text: 'Prvá', subject, to: [bob.user], emailAccountId: accountId });
    expect(same.status).to.equal(201);
    expect(same.headers['idempotent-replayed']).to.equal('true');

    const other = await post({ emailAccountId: accountId, to: [bob.user], subject, text: 'Druhá, iná' });
    expect(other.status, JSON.stringify(other.body)).to.equal(409);
    expect(other.body.error.code).to.equal('idempotency_conflict');
    expect(await emailsAfterMarker(bob, subject, markerViaCrm(app, owner, accountId, bob.user))).to.have.length(1);
  });

  it('multipart: the same fields and files are replayed, another file is 409', async () => {
    const key = `m-${randomBytes(6).toString('hex')}`;
    const subject = uniqueSubject('Kluc subor');
    const file = randomFile(50_000);
    const post = (bytes: Buffer) =>
      owner
        .as(request(app).post('/api/emails'))
        .set('Idempotency-Key', key)
        .field('emailAccountId', accountId)
        .field('to', bob.user)
        .field('subject', subject)
        .field('text', 'S prílohou')
        .attach('attachments', bytes, { filename: 'zmluva.bin' });
    const first = await post(file);
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const same = await post(file);
    expect(same.status, JSON.stringify(same.body)).to.equal(201);
    expect(same.headers['idempotent-replayed']).to.equal('true');
    const other = await post(randomFile(50_000));
    expect(other.status, JSON.stringify(other.body)).to.equal(409);
    expect(other.body.error.code).to.equal('idempotency_conflict');
    expect(await emailsAfterMarker(bob, subject, markerViaCrm(app, owner, accountId, bob.user))).to.have.length(1);
  });
});
