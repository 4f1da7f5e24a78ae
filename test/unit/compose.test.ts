import { expect } from 'chai';
import { draftEmail, envelopeOf, newMessageId, pick, replyRecipients, replyReferences, replySubject } from '../../src/sending/compose.js';
import { OutgoingMessage } from '../../src/sending/outgoing-message.js';

describe('sending: composing a reply (unit)', () => {
  it('puts "Re: " in front exactly once, whatever prefixes the original has', () => {
    expect(replySubject('Ponuka')).to.equal('Re: Ponuka');
    expect(replySubject('Re: Ponuka')).to.equal('Re: Ponuka');
    expect(replySubject('RE: re:Re[2]: AW: Ponuka')).to.equal('Re: Ponuka');
    expect(replySubject('  ')).to.equal('Re:');
    expect(replySubject(null)).to.equal('Re:');
    expect(replySubject('Region: Východ')).to.equal('Re: Region: Východ');
  });

  it('References: the parent chain then its Message-ID, no duplicates, bounded', () => {
    expect(replyReferences({ messageId: ['c@x'], references: ['a@x', 'b@x'], inReplyTo: ['b@x'] })).to.deep.equal(['a@x', 'b@x', 'c@x']);
    expect(replyReferences({ messageId: ['c@x'], references: null, inReplyTo: ['b@x'] })).to.deep.equal(['b@x', 'c@x']);
    expect(replyReferences({ messageId: ['c@x'], references: ['c@x'], inReplyTo: null })).to.deep.equal(['c@x']);
    const long = replyReferences({ messageId: ['last@x'], references: Array.from({ length: 40 }, (_, i) => `r${i}@x`), inReplyTo: null });
    expect(long).to.have.length(20);
    expect(long[0]).to.equal('r0@x');
    expect(long[19]).to.equal('last@x');
  });

  it('replies to Reply-To or From; reply-all copies To and Cc; never the account itself', () => {
    const own = new Set(['me@firma.sk']);
    const original = {
      from: [{ name: 'Ana', email: 'ana@klient.sk' }],
      replyTo: null,
      to: [
        { name: null, email: 'ME@firma.sk' },
        { name: 'Ben', email: 'ben@klient.sk' },
      ],
      cc: [
        { name: null, email: 'ana@klient.sk' },
        { name: null, email: 'cyril@klient.sk' },
      ],
    };
    expect(replyRecipients(original, own, false)).to.deep.equal({ to: [{ email: 'ana@klient.sk', name: 'Ana' }], cc: [], bcc: [] });
    expect(replyRecipients(original, own, true).cc).to.deep.equal([{ email: 'ben@klient.sk', name: 'Ben' }, { email: 'cyril@klient.sk' }]);
    expect(replyRecipients({ ...original, replyTo: [{ name: null, email: 'tickets@klient.sk' }] }, own, false).to).to.deep.equal([{ email: 'tickets@klient.sk' }]);
    // Answering one's own sent mail goes to its recipients.
    const mine = { from: [{ name: null, email: 'me@firma.sk' }], replyTo: null, to: [{ name: null, email: 'dana@klient.sk' }], cc: null };
    expect(replyRecipients(mine, own, false).to).to.deep.equal([{ email: 'dana@klient.sk' }]);
  });

  it('keeps Bcc out of the headers and in the envelope only', () => {
    const draft = draftEmail({
      from: { email: 'me@firma.sk' },
      to: [{ email: 'a@x.sk' }],
      cc: [],
      bcc: [{ email: 'hidden@x.sk' }],
      subject: 'S',
      text: 'T',
      attachments: [],
      messageId: 'id@firma.sk',
      sentAt: new Date(0),
    });
    expect(draft).to.not.have.property('bcc');
    expect(JSON.stringify(draft)).to.not.include('hidden@x.sk');
    expect(envelopeOf('me@firma.sk', { to: [{ email: 'a@x.sk' }], cc: [{ email: 'A@x.sk' }], bcc: [{ email: 'hidden@x.sk' }] })).to.deep.equal({
      mailFrom: 'me@firma.sk',
      rcptTo: ['a@x.sk', 'hidden@x.sk'],
    });
  });
});

describe('sending: composing a message (unit)', () => {
  const base = {
    from: { email: 'me@firma.sk', name: 'Ja Sám' },
    to: [{ email: 'a@x.sk', name: 'Ana' }],
    cc: [{ email: 'c@x.sk' }],
    bcc: [],
    subject: 'Ponuka',
    text: 'Dobrý deň',
    attachments: [],
    messageId: 'id@firma.sk',
    sentAt: new Date('2026-03-01T08:30:00Z'),
  };

  it('builds the Email/set object: From with name, To, Cc, one Message-ID, sentAt in ISO, a text part', () => {
    expect(draftEmail(base)).to.deep.equal({
      from: [{ email: 'me@firma.sk', name: 'Ja Sám' }],
      to: [{ email: 'a@x.sk', name: 'Ana' }],
      cc: [{ email: 'c@x.sk' }],
      subject: 'Ponuka',
      messageId: ['id@firma.sk'],
      sentAt: '2026-03-01T08:30:00.000Z',
      bodyValues: { text: { value: 'Dobrý deň' } },
      textBody: [{ partId: 'text', type: 'text/plain' }],
    });
  });

  it('adds an HTML alternative only when HTML was given (an empty string counts)', () => {
    const withHtml = draftEmail({ ...base, html: '' });
    expect(withHtml.htmlBody).to.deep.equal([{ partId: 'html', type: 'text/html' }]);
    expect(withHtml.bodyValues).to.deep.equal({ text: { value: 'Dobrý deň' }, html: { value: '' } });
    expect(draftEmail(base)).to.not.have.property('htmlBody');
  });

  it('leaves out an empty Cc instead of sending an empty header', () => {
    expect(draftEmail({ ...base, cc: [] })).to.not.have.property('cc');
  });

  it('threads a reply: In-Reply-To is the original Message-ID, References its chain plus it', () => {
    const draft = draftEmail({ ...base, original: { messageId: ['p@x'], references: ['root@x'], inReplyTo: ['root@x'] } });
    expect(draft.inReplyTo).to.deep.equal(['p@x']);
    expect(draft.references).to.deep.equal(['root@x', 'p@x']);
    // An original without a Message-ID gives no threading headers at all.
    const orphan = draftEmail({ ...base, original: { messageId: null, references: null, inReplyTo: null } });
    expect(orphan).to.not.have.property('inReplyTo');
    expect(orphan).to.not.have.property('references');
  });

  it('lists attachments by blob with disposition attachment, and none when there are none', () => {
    const draft = draftEmail({ ...base, attachments: [{ blobId: 'G1', name: 'Faktúra.pdf', type: 'application/pdf', size: 10 }] });
    expect(draft.attachments).to.deep.equal([{ blobId: 'G1', type: 'application/pdf', name: 'Faktúra.pdf', disposition: 'attachment' }]);
    expect(draftEmail(base)).to.not.have.property('attachments');
  });

  it("makes a fresh Message-ID in the sender's domain, without angle brackets", () => {
    const a = newMessageId('ana@Firma.sk');
    const b = newMessageId('ana@Firma.sk');
    expect(a).to.match(/^[0-9a-f-]{36}@Firma\.sk$/);
    expect(a).to.not.equal(b);
    expect(newMessageId('no-domain@')).to.match(/@crm\.invalid$/);
  });

  it('picks each address once, case-insensitively, trimmed, skipping blanks and ones already seen', () => {
    const seen = new Set(['me@firma.sk']);
    const picked = pick([{ email: ' A@x.sk ', name: 'A' }, { email: 'a@X.sk' }, { email: '' }, { email: 'ME@firma.sk' }, { email: 'b@x.sk', name: '' }], seen);
    expect(picked).to.deep.equal([{ email: 'A@x.sk', name: 'A' }, { email: 'b@x.sk' }]);
    expect([...seen]).to.deep.equal(['me@firma.sk', 'a@x.sk', 'b@x.sk']);
  });

  it('knows the common reply prefixes and keeps other words ending in a colon', () => {
    expect(replySubject('Odp: SV: aw: Termín')).to.equal('Re: Termín');
    expect(replySubject('Fwd: Termín')).to.equal('Re: Fwd: Termín');
    expect(replySubject('Rezervácia: máj')).to.equal('Re: Rezervácia: máj');
  });

  it('reply-all with Reply-To: the reply goes to Reply-To and the other recipients are copied once', () => {
    const own = new Set(['me@firma.sk']);
    const original = {
      from: [{ name: 'Ana', email: 'ana@klient.sk' }],
      replyTo: [{ name: null, email: 'ANA@klient.sk' }],
      to: [
        { name: null, email: 'me@firma.sk' },
        { name: null, email: 'ana@klient.sk' },
      ],
      cc: [
        { name: 'Ben', email: 'ben@klient.sk' },
        { name: null, email: 'Ben@klient.sk' },
      ],
    };
    expect(replyRecipients(original, own, true)).to.deep.equal({ to: [{ email: 'ANA@klient.sk' }], cc: [{ email: 'ben@klient.sk', name: 'Ben' }], bcc: [] });
  });

  it('the envelope of a message with no recipients is empty, never the sender', () => {
    expect(envelopeOf('me@firma.sk', { to: [], cc: [], bcc: [] })).to.deep.equal({ mailFrom: 'me@firma.sk', rcptTo: [] });
  });

  it('a send in progress starts with nothing sent and no origin', () => {
    const message = new OutgoingMessage('u1', { kind: 'reply', emailId: 'e1' });
    expect(message.outcome).to.equal('nothing');
    expect(message.origin).to.equal(undefined);
    expect(message.target).to.deep.equal({ kind: 'reply', emailId: 'e1' });
  });
});

describe('sending: header text of a draft (unit)', () => {
  it('every display name and the subject of a draft is one clean line (issue 26)', () => {
    const draft = draftEmail({
      from: { email: 'me@firma.sk', name: 'Ja\r\nSender: ceo@firma.sk' },
      to: [
        { email: 'a@x.sk', name: 'Ana\r\nReply-To: evil@x.sk\u2028\u202eX' },
        { email: 'b@x.sk', name: '\r\n' },
      ],
      cc: [{ email: 'c@x.sk', name: 'C\u0000\u0085D' }],
      bcc: [],
      subject: 'Re: Faktúra\r\nContent-Type: text/html',
      text: 'T',
      attachments: [],
      messageId: 'id@firma.sk',
      sentAt: new Date(0),
    });
    expect(draft.from).to.deep.equal([{ email: 'me@firma.sk', name: 'Ja Sender: ceo@firma.sk' }]);
    expect(draft.to).to.deep.equal([{ email: 'a@x.sk', name: 'Ana Reply-To: evil@x.sk X' }, { email: 'b@x.sk' }]);
    expect(draft.cc).to.deep.equal([{ email: 'c@x.sk', name: 'C D' }]);
    expect(draft.subject).to.equal('Re: Faktúra Content-Type: text/html');
    expect(replySubject('Ponuka\r\nBcc: x@y.sk')).to.equal('Re: Ponuka Bcc: x@y.sk');
  });
});
