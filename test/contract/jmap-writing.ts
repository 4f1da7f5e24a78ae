/**
 * The JMAP contract, writing side: what sending relies on (Identity/get, blob upload and download,
 * Email/set create + EmailSubmission/set + onSuccessUpdateEmail in one request, the relay's refusals as
 * Cyrus reports them) and the request-level errors. Run against Cyrus and the fake alike
 * (jmap-reading.ts says how).
 */
import { expect } from 'chai';
import { createAndSubmit, downloadBlob, JmapClient, JmapProtocolError, prepareSend, uploadBlob, type SendSetup } from '../../src/jmap/index.js';
import { draftEmail, envelopeOf } from '../../src/sending/compose.js';
import { EMAIL_GET_ARGS } from '../../src/sync/jmap-sync-calls.js';
import { createTestMailUser, testJmapSessionUrl } from '../support/imap.js';
import { relayDeliveries } from '../support/relay-log.js';
import { until } from '../support/poll.js';
import { rejection } from './fixtures.js';

export function jmapWritingContract(): void {
  let sessionUrl: string;
  let me: { user: string; pass: string };
  let peer: { user: string; pass: string };
  let client: JmapClient;
  let peerClient: JmapClient;
  let setup: SendSetup;
  const clientOf = (u: { user: string; pass: string }) => new JmapClient({ sessionUrl, credentials: { kind: 'basic', username: u.user, password: u.pass }, timeoutMs: 10_000 });

  async function* chunks(data: Buffer): AsyncGenerator<Uint8Array> {
    yield data.subarray(0, 5);
    yield data.subarray(5);
  }

  const send = (
    to: string[],
    subject: string,
    extra: { html?: string; attachments?: Array<{ blobId: string; name: string; type: string; size: number }>; mailFrom?: string } = {},
  ) => {
    const recipients = { to: to.map((email) => ({ email, name: 'Žofia Adresátka' })), cc: [], bcc: [] };
    const draft = draftEmail({
      from: { email: me.user, name: 'Odosielateľ' },
      ...recipients,
      subject,
      text: 'Dobrý deň,\nposielam.',
      html: extra.html,
      attachments: extra.attachments ?? [],
      messageId: `${Date.now()}.${Math.random().toString(36).slice(2)}@example.test`,
      sentAt: new Date('2026-01-02T03:04:05.678Z'),
    });
    const envelope = envelopeOf(extra.mailFrom ?? me.user, recipients);
    // As src/sending/email-sender-service.ts asks for the sent email.
    return createAndSubmit(client, me.user, setup, { draft, envelope }, EMAIL_GET_ARGS);
  };

  before(async () => {
    sessionUrl = testJmapSessionUrl();
    me = await createTestMailUser('csend');
    peer = await createTestMailUser('cpeer');
    client = clientOf(me);
    peerClient = clientOf(peer);
    setup = await prepareSend(client, me.user, me.user);
  });

  it('Identity/get offers one identity, named by the address; Drafts and Sent are found by role', async () => {
    const r = await client.callOne<{ list: unknown[] }>('Identity/get', { accountId: me.user }, { using: ['urn:ietf:params:jmap:submission'] });
    expect(r.list).to.deep.equal([{ id: me.user, name: '', email: me.user, mayDelete: false }]);
    expect(setup.identity).to.deep.include({ id: me.user, email: me.user });
    expect(setup.draftsId).to.be.a('string').and.not.equal(setup.sentId);
    expect(setup.excludedIds).to.have.length(3);
  });

  it('a blob uploads in chunks, downloads whole with the asked type, and an unknown blob is a 404', async () => {
    const data = Buffer.from('%PDF-1.4 contract blob\n', 'latin1');
    const up = await uploadBlob(client, me.user, chunks(data), 'application/pdf');
    expect(up).to.deep.equal({ blobId: up.blobId, size: data.length, type: 'application/pdf' });
    expect(up.blobId).to.match(/^G[0-9a-f]{40}$/);
    const down = await downloadBlob(client, me.user, up.blobId, { name: 'a.pdf', type: 'application/pdf' });
    const got: Buffer[] = [];
    for await (const chunk of down.body) got.push(chunk as Buffer);
    expect(Buffer.concat(got)).to.deep.equal(data);
    expect(down).to.deep.include({ size: data.length, type: 'application/pdf' });
    const missing = await rejection(downloadBlob(client, me.user, 'Gffffffffffffffffffffffffffffffffffffffff'));
    expect(missing).to.be.instanceOf(JmapProtocolError);
    expect((missing as JmapProtocolError).status).to.equal(404);
  });

  it('a message sent in one request lands in Sent without $draft, reaches a local recipient unread, and is relayed once', async () => {
    const data = Buffer.from('%PDF-1.4 attachment\n', 'latin1');
    const up = await uploadBlob(client, me.user, chunks(data), 'application/pdf');
    const subject = `Contract send ${Date.now()}`;
    const outcome = await send([peer.user], subject, {
      html: '<p>Dobrý deň</p>',
      attachments: [{ blobId: up.blobId, name: 'Príloha č. 1.pdf', type: 'application/pdf', size: up.size }],
    });
    if (!outcome.ok) throw new Error(`not sent: ${JSON.stringify(outcome)}`);
    const email = outcome.email!;
    expect(email.mailboxIds).to.deep.equal({ [setup.sentId]: true });
    expect(email.keywords).to.deep.include({ $seen: true });
    expect(email.keywords).not.to.have.property('$draft');
    expect(email.subject).to.equal(subject);
    expect(email.from).to.deep.equal([{ name: 'Odosielateľ', email: me.user }]);
    expect(email.to).to.deep.equal([{ name: 'Žofia Adresátka', email: peer.user }]);
    expect(email.sentAt).to.equal('2026-01-02T03:04:05Z');
    expect(email.hasAttachment).to.equal(true);
    expect((email.attachments ?? []).map((a) => [a.name, a.type, a.size, a.blobId])).to.deep.equal([['Príloha č. 1.pdf', 'application/pdf', data.length, up.blobId]]);
    expect(relayDeliveries(subject).map((d) => ({ from: d.from, to: d.to }))).to.deep.equal([{ from: me.user, to: [peer.user] }]);

    const received = await until(
      async () => {
        const r = await peerClient.call([
          ['Email/query', { accountId: peer.user, filter: null, limit: 50 }, 'q'],
          [
            'Email/get',
            {
              accountId: peer.user,
              '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' },
              properties: ['subject', 'keywords', 'mailboxIds', 'from', 'messageId', 'attachments'],
            },
            'g',
          ],
        ]);
        return (r[1][1].list as Array<Record<string, unknown>>).find((e) => e.subject === subject);
      },
      { what: "the message in the recipient's mailbox" },
    );
    const peerInbox = (await prepareSend(peerClient, peer.user, peer.user)).excludedIds;
    expect(received.keywords).to.deep.equal({});
    expect(Object.keys(received.mailboxIds as object)).to.have.length(1);
    expect(peerInbox).not.to.include(Object.keys(received.mailboxIds as object)[0]);
    expect(received.messageId).to.deep.equal(email.messageId);
    expect((received.attachments as Array<{ name: string }>).map((a) => a.name)).to.deep.equal(['Príloha č. 1.pdf']);
  });

  it('the relay refusing a recipient, for now or the sender is reported the way send-errors.ts reads it, and nothing is relayed', async () => {
    const subject = `Contract refusals ${Date.now()}`;
    const rejected = await send([peer.user, 'reject-someone@example.test'], subject);
    expect(rejected).to.deep.include({ ok: false, stage: 'submission', draftLeft: false });
    expect((rejected as { error: unknown }).error).to.deep.equal({ type: 'tooManyRecipients', maxRecipients: 1 });
    const later = await send(['tempfail-someone@example.test'], subject);
    expect((later as { error: { type: string; description: string } }).error).to.deep.equal({ type: 'forbiddenToSend', description: '4.3.0 Temporary failure (test hook)' });
    expect(relayDeliveries(subject)).to.deep.equal([]);
  });

  it('Email/set with ifInState of another state is a stateMismatch; an unknown method or account is named as such', async () => {
    const r = await client.call([
      ['Email/set', { accountId: me.user, ifInState: '1', update: {} }, 'a'],
      ['Nope/get', { accountId: me.user }, 'b'],
      ['Email/get', { accountId: 'nobody@example.test', ids: [] }, 'c'],
      ['Email/get', { accountId: me.user, '#ids': { resultOf: 'zz', name: 'Email/query', path: '/ids' } }, 'd'],
    ]);
    expect(r).to.deep.equal([
      ['error', { type: 'stateMismatch' }, 'a'],
      ['error', { type: 'unknownMethod' }, 'b'],
      ['error', { type: 'accountNotFound' }, 'c'],
      ['error', { type: 'resultReference' }, 'd'],
    ]);
  });

  it('request-level limits and malformed requests are RFC 8620 problems', async () => {
    const post = async (body: string) => {
      const res = await fetch(new URL('/jmap/', sessionUrl), {
        method: 'POST',
        body,
        headers: { Authorization: `Basic ${Buffer.from(`${me.user}:${me.pass}`).toString('base64')}`, 'Content-Type': 'application/json' },
      });
      const problem = (await res.json()) as { type: string; limit?: string };
      return { status: res.status, type: problem.type.replace('urn:ietf:params:jmap:error:', ''), limit: problem.limit };
    };
    const request = (calls: unknown[]) => JSON.stringify({ using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'], methodCalls: calls });
    expect(await post('{nope')).to.deep.include({ status: 400, type: 'notJSON' });
    expect(await post('{"x":1}')).to.deep.include({ status: 400, type: 'notRequest' });
    expect(await post(request(Array.from({ length: 51 }, (_, i) => ['Mailbox/get', { accountId: me.user, ids: [] }, `c${i}`])))).to.deep.equal({
      status: 400,
      type: 'limit',
      limit: 'maxCallsInRequest',
    });
    const ids = Array.from({ length: 4097 }, (_, i) => `M${String(i).padStart(24, '0')}`);
    expect(await post(request([['Email/get', { accountId: me.user, ids }, 'g']]))).to.deep.equal({ status: 400, type: 'limit', limit: 'maxObjectsInGet' });
    expect(await post(request([['Mailbox/get', { accountId: me.user, ids: [], pad: 'y'.repeat(10_485_760) }, 'm']]))).to.deep.equal({
      status: 413,
      type: 'limit',
      limit: 'maxSizeRequest',
    });
  });
}
