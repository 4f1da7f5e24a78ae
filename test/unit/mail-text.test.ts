/**
 * The text rules of the sync (src/sync/text-cleanup.ts, address-rules.ts, email-body.ts): what a
 * stored subject, name, address line and body may contain, whatever a sender put into the mail.
 */
import { expect } from 'chai';
import type { Email } from '../../src/jmap/index.js';
import { displayName, formatAddressList, isBulkMail, isNoReplyAddress, normalizeAddress } from '../../src/sync/address-rules.js';
import { BODY_CAP_BYTES, extractBody } from '../../src/sync/email-body.js';
import { capUtf8, cleanIdentifier, cleanText } from '../../src/sync/text-cleanup.js';

function email(overrides: Partial<Email>): Email {
  return { id: 'M1', ...overrides };
}

function bodyOf(parts: Array<[type: string, value: string]>): string | null {
  return extractBody(
    email({
      textBody: parts.map(([type], i) => ({ partId: String(i), type })),
      bodyValues: Object.fromEntries(parts.map(([, value], i) => [String(i), { value, isEncodingProblem: false, isTruncated: false }])),
    }),
  );
}

describe('unit: text cleanup', () => {
  it('removes NUL characters and replaces lone surrogates (PostgreSQL refuses both)', () => {
    expect(cleanText('a\u0000b')).to.equal('ab');
    expect(cleanText('x\uD800y')).to.equal('x\uFFFDy');
    expect(cleanText('x\uDC00')).to.equal('x\uFFFD');
    expect(cleanText('😀 ok')).to.equal('😀 ok'); // a proper pair stays
    expect(cleanText(null)).to.equal(null);
    expect(cleanText(undefined)).to.equal(null);
    expect(cleanText('')).to.equal('');
  });

  it('caps UTF-8 on a character boundary, never leaving half a character', () => {
    expect(capUtf8('abc', 3)).to.equal('abc');
    expect(capUtf8('žžž', 5)).to.equal('žž'); // 6 bytes; the third ž would be cut in half
    expect(capUtf8('a😀', 4)).to.equal('a'); // 5 bytes; the emoji does not fit
    expect(Buffer.byteLength(capUtf8('ľ'.repeat(1000), 1001))).to.equal(1000);
  });

  it('drops (not truncates) an identifier too long for an index, and blank ones', () => {
    expect(cleanIdentifier('  <a@b>  ')).to.equal('<a@b>');
    expect(cleanIdentifier('x'.repeat(500))).to.have.length(500);
    expect(cleanIdentifier('x'.repeat(501))).to.equal(null);
    expect(cleanIdentifier('abc', 2)).to.equal(null);
    expect(cleanIdentifier('   ')).to.equal(null);
    expect(cleanIdentifier(null)).to.equal(null);
  });
});

describe('unit: address rules', () => {
  it('normalises an address to lower case, trimmed', () => {
    expect(normalizeAddress('  Ana.Nova@Firma.SK ')).to.equal('ana.nova@firma.sk');
    expect(normalizeAddress('"quoted local"@x.sk')).to.equal(null);
  });

  it('refuses what nobody could write to: no @, nothing before or after it, spaces, brackets, control characters', () => {
    for (const bad of ['', 'ab', 'plain', '@x.sk', 'ana@', 'a b@x.sk', '<a@x.sk>', 'a@x.sk, b@x.sk', 'a;b@x.sk', 'a\u0001@x.sk', null, undefined]) {
      expect(normalizeAddress(bad), String(bad)).to.equal(null);
    }
  });

  it('accepts an address of exactly 254 characters and refuses 255', () => {
    const at254 = `${'a'.repeat(254 - '@x.sk'.length)}@x.sk`;
    expect(normalizeAddress(at254)).to.have.length(254);
    expect(normalizeAddress(`a${at254}`)).to.equal(null);
  });

  it('uses the last @ (a quoted local part may contain one)', () => {
    expect(normalizeAddress('a@b@x.sk')).to.equal('a@b@x.sk');
    expect(isNoReplyAddress('no-reply@team@x.sk')).to.equal(true);
  });

  it('keeps a display name only when it says more than the address, without quotes, capped at 200', () => {
    expect(displayName({ name: ' "Ana  Nová" ', email: 'ana@x.sk' }, 'ana@x.sk')).to.equal('Ana Nová');
    expect(displayName({ name: 'ANA@x.sk', email: 'ana@x.sk' }, 'ana@x.sk')).to.equal(null);
    expect(displayName({ name: "''", email: 'a@x.sk' }, 'a@x.sk')).to.equal(null);
    expect(displayName({ name: null, email: 'a@x.sk' }, 'a@x.sk')).to.equal(null);
    expect(displayName({ name: 'Ž'.repeat(300), email: 'a@x.sk' }, 'a@x.sk')).to.have.length(200);
  });

  it('strips control characters and bidi overrides from a display name (issue 52, finding 16)', () => {
    expect(displayName({ name: 'Ana\u202E\u2066 Nová\u2069\u202C', email: 'a@x.sk' }, 'a@x.sk')).to.equal('Ana Nová');
    expect(displayName({ name: 'Ana\u0007\u009B\u007F\tNová', email: 'a@x.sk' }, 'a@x.sk')).to.equal('Ana Nová');
    expect(displayName({ name: '\u202E\u202D', email: 'a@x.sk' }, 'a@x.sk')).to.equal(null);
    // A direction mark only hints and is kept; letters of any script too.
    expect(displayName({ name: 'شركة\u200F Ana', email: 'a@x.sk' }, 'a@x.sk')).to.equal('شركة\u200F Ana');
  });

  it('does not call people robots: noreply must be the address, not a word inside a name', () => {
    expect(isNoReplyAddress('reply@x.sk')).to.equal(false);
    expect(isNoReplyAddress('bounce.lab@x.sk')).to.equal(true); // "bounce" + separator is a VERP form
    expect(isNoReplyAddress('bouncy@x.sk')).to.equal(false);
    expect(isNoReplyAddress('postmaster.team@x.sk')).to.equal(false);
    expect(isNoReplyAddress('do.not.reply@x.sk')).to.equal(true);
  });

  it('ignores empty bulk headers (Email/get answers null or blank when one is absent)', () => {
    expect(isBulkMail(email({ 'header:List-Id:asText': null, 'header:List-Unsubscribe': '   ', 'header:Precedence:asText': '', 'header:Auto-Submitted:asText': null }))).to.equal(
      false,
    );
    expect(isBulkMail(email({ 'header:Auto-Submitted:asText': 'no ' }))).to.equal(false);
    expect(isBulkMail(email({ 'header:Auto-Submitted:asText': 'auto-generated' }))).to.equal(true);
  });

  it('formats an address line as the CRM shows it', () => {
    expect(
      formatAddressList([
        { name: 'Ana', email: 'ana@x.sk' },
        { name: null, email: 'b@x.sk' },
        { name: 'c@x.sk', email: 'C@x.sk' },
      ]),
    ).to.equal('Ana <ana@x.sk>, b@x.sk, C@x.sk');
    expect(formatAddressList([{ name: 'Len meno', email: '' }])).to.equal('Len meno');
    expect(formatAddressList([{ name: '', email: '' }])).to.equal(null);
    expect(formatAddressList([])).to.equal(null);
    expect(formatAddressList(null)).to.equal(null);
    expect(formatAddressList([{ name: 'A\u0000na\n  Nová', email: 'a@x.sk' }])).to.equal('Ana Nová <a@x.sk>');
  });
});

describe('unit: email body', () => {
  it('joins the text parts with a blank line, normalising CRLF and trimming', () => {
    expect(
      bodyOf([
        ['text/plain', '  Prvá\r\nčasť  '],
        ['text/plain', 'Druhá'],
      ]),
    ).to.equal('Prvá\nčasť  \n\nDruhá');
  });

  it('reads HTML as text without links, images, styles or scripts', () => {
    const html = '<style>p{color:red}</style><script>alert(1)</script><p>Dobrý <a href="https://x.sk/track">deň</a></p><img src="cid:x">';
    expect(bodyOf([['TEXT/HTML', html]])).to.equal('Dobrý deň');
  });

  it('has no body when every part is empty, missing or not text', () => {
    expect(bodyOf([])).to.equal(null);
    expect(
      bodyOf([
        ['text/plain', ''],
        ['text/plain', '   '],
      ]),
    ).to.equal(null);
    expect(extractBody(email({ textBody: [{ partId: '9', type: 'text/plain' }], bodyValues: {} }))).to.equal(null);
    expect(extractBody(email({ textBody: [{ partId: null, type: 'text/plain' }] }))).to.equal(null);
  });

  it('caps the sum of several parts at BODY_CAP_BYTES', () => {
    const half = 'a'.repeat(BODY_CAP_BYTES / 2 + 10);
    const body = bodyOf([
      ['text/plain', half],
      ['text/plain', half],
    ])!;
    expect(Buffer.byteLength(body)).to.equal(BODY_CAP_BYTES);
  });

  it('survives pathologically deep HTML without throwing', () => {
    const deep = `${'<div>'.repeat(5000)}hlboko${'</div>'.repeat(5000)}`;
    const body = bodyOf([['text/html', deep]]);
    expect(body).to.be.a('string').and.not.include('<div>');
  });
});
