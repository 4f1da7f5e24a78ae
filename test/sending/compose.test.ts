import { expect } from 'chai';
import { draftEmail, envelopeOf, replyRecipients, replyReferences, replySubject } from '../../src/sending/compose.js';

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
      to: [{ name: null, email: 'ME@firma.sk' }, { name: 'Ben', email: 'ben@klient.sk' }],
      cc: [{ name: null, email: 'ana@klient.sk' }, { name: null, email: 'cyril@klient.sk' }],
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

  it('every display name and the subject of a draft is one clean line (issue 26)', () => {
    const draft = draftEmail({
      from: { email: 'me@firma.sk', name: 'Ja\r\nSender: ceo@firma.sk' },
      to: [{ email: 'a@x.sk', name: 'Ana\r\nReply-To: evil@x.sk\u2028\u202eX' }, { email: 'b@x.sk', name: '\r\n' }],
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
