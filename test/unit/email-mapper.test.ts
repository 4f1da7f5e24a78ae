import { expect } from 'chai';
import type { Email } from '../../src/jmap/index.js';
import { isBulkMail, isNoReplyAddress, normalizeAddress } from '../../src/sync/address-rules.js';
import { BODY_CAP_BYTES } from '../../src/sync/email-body.js';
import { mapEmail, mailboxRoles, type MapContext } from '../../src/sync/email-mapper.js';
import { backoffMinutes } from '../../src/sync/sync-errors.js';

const context: MapContext = {
  roles: mailboxRoles([
    { id: 'in', role: 'inbox' },
    { id: 'sent', role: 'sent' },
    { id: 'trash', role: 'trash' },
    { id: 'junk', role: 'junk' },
    { id: 'drafts', role: 'drafts' },
    { id: 'arch', role: 'archive' },
  ]),
  ownAddresses: new Set(['me@staff.example']),
};

function email(overrides: Partial<Email>): Email {
  return {
    id: 'M1',
    threadId: 'T1',
    mailboxIds: { in: true },
    keywords: {},
    messageId: ['m1@x'],
    inReplyTo: null,
    from: [{ name: 'Ann', email: 'ann@x.example' }],
    to: [{ name: 'Me', email: 'me@staff.example' }],
    cc: null,
    subject: 'Hi',
    receivedAt: '2024-05-01T09:00:00Z',
    sentAt: '2024-05-01T08:59:00Z',
    textBody: [{ partId: '1', type: 'text/plain' }],
    bodyValues: { '1': { value: 'Hello', isEncodingProblem: false, isTruncated: false } },
    ...overrides,
  };
}

describe('email mapper (JMAP Email → CRM row and correspondents)', () => {
  it('recognises robots by their address, not people whose names merely resemble them', () => {
    for (const robot of [
      'noreply@x.io',
      'no-reply@x.io',
      'No_Reply@x.io',
      'donotreply@x.io',
      'do-not-reply@x.io',
      'dont-reply@x.io',
      'mailer-daemon@x.io',
      'MAILER-DAEMON@x.io',
      'postmaster@x.io',
      'bounce@x.io',
      'bounces+abc=me@x.io',
      'bounce-123@x.io',
      'info-noreply@x.io',
    ]) {
      expect(isNoReplyAddress(normalizeAddress(robot)!), robot).to.equal(true);
    }
    for (const person of ['bouncer@x.io', 'norbert@x.io', 'replies@x.io', 'daemon.lover@x.io', 'post@x.io']) {
      expect(isNoReplyAddress(person), person).to.equal(false);
    }
  });

  it('treats List-Id, List-Unsubscribe, Precedence bulk/list/junk and Auto-Submitted (not "no") as bulk', () => {
    const bulk = (headers: Record<string, string | null>) => isBulkMail(email(headers));
    expect(bulk({})).to.equal(false);
    expect(bulk({ 'header:List-Id:asText': 'News <news.x.example>' })).to.equal(true);
    expect(bulk({ 'header:List-Unsubscribe': ' <mailto:u@x.example>' })).to.equal(true);
    for (const p of ['bulk', 'List', ' junk ']) expect(bulk({ 'header:Precedence:asText': p }), p).to.equal(true);
    expect(bulk({ 'header:Precedence:asText': 'first-class' })).to.equal(false);
    expect(bulk({ 'header:Auto-Submitted:asText': 'auto-replied' })).to.equal(true);
    expect(bulk({ 'header:Auto-Submitted:asText': 'no' })).to.equal(false);
    expect(bulk({ 'header:Auto-Submitted:asText': 'No; reason=human' })).to.equal(false);
  });

  it('files received mail under its sender and sent mail under its To and Cc, never under the account itself', () => {
    const received = mapEmail(email({ cc: [{ name: null, email: 'Cc@X.example' }] }), context);
    expect(received.correspondents).to.deep.equal([{ email: 'ann@x.example', name: 'Ann' }]);
    expect(received.participants).to.deep.equal(['ann@x.example', 'cc@x.example']);

    const sent = mapEmail(
      email({
        mailboxIds: { sent: true },
        from: [{ name: 'Me', email: 'ME@staff.example' }],
        to: [
          { name: 'Bob', email: 'bob@x.example' },
          { name: null, email: 'noreply@x.example' },
        ],
        cc: [
          { name: 'Me again', email: 'me@staff.example' },
          { name: 'bob@x.example', email: 'BOB@x.example' },
          { name: 'Cy', email: 'cy@x.example' },
        ],
      }),
      context,
    );
    expect(sent.correspondents).to.deep.equal([
      { email: 'bob@x.example', name: 'Bob' },
      { email: 'cy@x.example', name: 'Cy' },
    ]);

    // In the Sent mailbox under another From (an alias): still the owner's mail.
    const viaSentBox = mapEmail(
      email({
        mailboxIds: { sent: true },
        from: [{ name: 'Alias', email: 'alias@staff.example' }],
        to: [{ name: 'Dee', email: 'dee@x.example' }],
      }),
      context,
    );
    expect(viaSentBox.correspondents).to.deep.equal([{ email: 'dee@x.example', name: 'Dee' }]);
  });

  it('marks mail as outbound when it sits in Sent or the CRM sent it, not for a From naming the account (issue 52); a colleague’s mailbox is outside (ADR 0118)', () => {
    expect(mapEmail(email({}), context).outbound).to.equal(false);
    const forged = email({ from: [{ name: 'Me', email: 'ME@staff.example' }], to: [{ name: 'Ann', email: 'ann@x.example' }] });
    expect(mapEmail(forged, context).outbound).to.equal(false);
    expect(mapEmail(forged, context).correspondents).to.deep.equal([]);
    expect(mapEmail(forged, { ...context, sentThroughCrm: true }).outbound).to.equal(true);
    const viaAlias = email({ mailboxIds: { sent: true }, from: [{ name: 'Alias', email: 'alias@staff.example' }], to: [{ name: 'Ann', email: 'ann@x.example' }] });
    expect(mapEmail(viaAlias, context).outbound).to.equal(true);
    expect(mapEmail(email({ from: [{ name: 'Kolega', email: 'kolega@staff.example' }] }), context).outbound).to.equal(false);
  });

  it('leaves out mail only in Trash, Junk or Drafts, and keeps mail that is also elsewhere', () => {
    expect(mapEmail(email({ mailboxIds: { trash: true } }), context).included).to.equal(false);
    expect(mapEmail(email({ mailboxIds: { junk: true, drafts: true } }), context).included).to.equal(false);
    expect(mapEmail(email({ mailboxIds: { trash: true, arch: true } }), context).included).to.equal(true);
  });

  it('maps fields: first Message-ID and In-Reply-To, read state, date from receivedAt, readable address lines', () => {
    const m = mapEmail(
      email({
        messageId: ['a@x', 'b@x'],
        inReplyTo: ['p@x'],
        keywords: { $seen: true },
        to: [
          { name: 'Me', email: 'me@staff.example' },
          { name: null, email: 'z@x.example' },
        ],
      }),
      context,
    );
    expect(m).to.include({
      jmapId: 'M1',
      messageId: 'a@x',
      inReplyTo: 'p@x',
      threadId: 'T1',
      isRead: true,
      from: 'Ann <ann@x.example>',
      to: 'Me <me@staff.example>, z@x.example',
      body: 'Hello',
    });
    expect(m.date!.toISOString()).to.equal('2024-05-01T09:00:00.000Z');
    expect(mapEmail(email({ receivedAt: undefined }), context).date!.toISOString()).to.equal('2024-05-01T08:59:00.000Z');
  });

  it('turns HTML into text, strips NUL characters and caps the body', () => {
    const html = mapEmail(
      email({
        textBody: [{ partId: '2', type: 'text/html' }],
        bodyValues: { '2': { value: '<p>Hi <b>there</b></p><img src="x.png"><a href="http://x">link</a>', isEncodingProblem: false, isTruncated: false } },
        subject: 'Bad\u0000subject',
      }),
      context,
    );
    expect(html.body).to.equal('Hi there\n\nlink');
    expect(html.subject).to.equal('Badsubject');

    const huge = 'ž'.repeat(BODY_CAP_BYTES); // 2 bytes each: twice the cap
    const capped = mapEmail(email({ bodyValues: { '1': { value: huge, isEncodingProblem: false, isTruncated: true } } }), context).body!;
    expect(Buffer.byteLength(capped)).to.be.at.most(BODY_CAP_BYTES);
    expect(capped.length).to.equal(BODY_CAP_BYTES / 2);
    expect(capped.endsWith('ž')).to.equal(true);
  });

  it('keeps attachment metadata (not content): name, type, size, inline or not, in the order of the email', () => {
    const mapped = mapEmail(
      email({
        attachments: [
          { partId: '2', blobId: 'Gpdf', name: 'Faktúra.pdf', type: 'Application/PDF', size: 1234, disposition: 'attachment', cid: null },
          { partId: '3', blobId: 'Gimg', name: 'logo.png', type: 'image/png', size: 99, disposition: 'inline', cid: 'logo@x' },
          { partId: '4', blobId: 'Gcid', name: null, type: 'image/gif', size: 5, disposition: null, cid: 'pic@x' },
          { partId: '5', blobId: null, name: 'broken', type: 'text/plain', size: 1 },
        ],
      }),
      context,
    );
    expect(mapped.attachments).to.deep.equal([
      { position: 0, blobId: 'Gpdf', partId: '2', name: 'Faktúra.pdf', type: 'application/pdf', size: 1234, disposition: 'attachment', cid: null, inline: false },
      { position: 1, blobId: 'Gimg', partId: '3', name: 'logo.png', type: 'image/png', size: 99, disposition: 'inline', cid: 'logo@x', inline: true },
      { position: 2, blobId: 'Gcid', partId: '4', name: null, type: 'image/gif', size: 5, disposition: null, cid: 'pic@x', inline: true },
    ]);
    expect(mapEmail(email({}), context).attachments).to.deep.equal([]);
  });

  it('backs off 1, 2, 4 ... minutes, never more than an hour', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map(backoffMinutes)).to.deep.equal([1, 2, 4, 8, 16, 32, 60, 60, 60]);
  });
});
