import { expect } from 'chai';
import { nameParts, renderTemplate, unknownPlaceholders, type PlaceholderValues } from '../../src/templates/template-render.js';
import { createTemplateBody } from '../../src/templates/template-schemas.js';
import { withSignature } from '../../src/signatures/signature-text.js';

const values = (over: Partial<PlaceholderValues> = {}): PlaceholderValues => ({
  'contact.name': 'Ľubomír Šebo',
  'contact.firstName': 'Ľubomír',
  'contact.lastName': 'Šebo',
  'company.name': 'Žltý s.r.o.',
  'user.firstName': 'Ján',
  'user.lastName': 'Kováč',
  ...over,
});

describe('template render (pure)', () => {
  it('fills every placeholder, spaces inside the braces allowed, diacritics kept', () => {
    const out = renderTemplate(
      {
        subject: 'Ponuka pre {{company.name}}',
        text: 'Dobrý deň, {{ contact.firstName }} {{contact.lastName}}!\n{{user.firstName}} {{user.lastName}}',
        html: '<p>{{contact.name}}</p>',
      },
      values(),
    );
    expect(out).to.deep.equal({ subject: 'Ponuka pre Žltý s.r.o.', text: 'Dobrý deň, Ľubomír Šebo!\nJán Kováč', html: '<p>Ľubomír Šebo</p>' });
  });

  it('inserts values as text: HTML-escaped into html, no CR/LF or control character into the subject or text', () => {
    const evil = '<script>alert(1)</script>\r\nBcc: x@evil.test\u0000';
    const out = renderTemplate({ subject: 'Pre {{contact.name}}', text: 'Ahoj {{contact.name}}', html: '<b>{{contact.name}}</b>' }, values({ 'contact.name': evil }));
    expect(out.subject).to.equal('Pre <script>alert(1)</script> Bcc: x@evil.test');
    expect(out.subject).not.to.match(/[\r\n\u0000]/);
    expect(out.text).to.equal('Ahoj <script>alert(1)</script> \nBcc: x@evil.test ');
    expect(out.html).to.equal('<b>&#60;script&#62;alert(1)&#60;/script&#62; \nBcc: x@evil.test </b>');
    expect(out.html).not.to.include('<script');
  });

  it('a template without HTML renders html null; an empty value leaves nothing behind', () => {
    const out = renderTemplate({ subject: '{{company.name}}', text: 'x{{company.name}}y', html: null }, values({ 'company.name': '' }));
    expect(out).to.deep.equal({ subject: '', text: 'xy', html: null });
  });

  it('names unknown placeholders once each, in order', () => {
    expect(unknownPlaceholders('{{contact.name}} {{ contact.email }} {{x}} {{contact.email}}')).to.deep.equal(['contact.email', 'x']);
    expect(unknownPlaceholders('no braces {single} {{contact.firstName}}')).to.deep.equal([]);
  });

  it('the create schema refuses an unknown placeholder with a Slovak message naming it', () => {
    const r = createTemplateBody.safeParse({ name: 'A', subject: 'Ahoj {{contact.email}}', text: 'x' });
    expect(r.success).to.equal(false);
    expect(r.error!.issues[0].message).to.include('{{contact.email}}').and.include('Neznámy zástupný symbol');
    expect(r.error!.issues[0].path).to.deep.equal(['subject']);
    expect(createTemplateBody.parse({ name: 'A', subject: 'S', text: 'T' }).shared).to.equal(false);
  });

  it('splits a contact name into first word and the rest', () => {
    expect(nameParts('  Ľubomír  Šebo ml. ')).to.deep.equal({ firstName: 'Ľubomír', lastName: 'Šebo ml.' });
    expect(nameParts(null)).to.deep.equal({ firstName: '', lastName: '' });
  });
});

describe('signature appended (pure)', () => {
  it('text below a "-- " line; HTML from the signature HTML, else the escaped text', () => {
    expect(withSignature({ text: 'Ahoj\n\n' }, { text: 'Ján\n+421', html: null })).to.deep.equal({ text: 'Ahoj\n\n-- \nJán\n+421' });
    expect(withSignature({ text: 'Ahoj', html: '<p>Ahoj</p>' }, { text: 'A & B', html: null }).html).to.equal('<p>Ahoj</p><div class="crm-signature">-- <br>A &#38; B</div>');
    expect(withSignature({ text: 'Ahoj', html: '<p>Ahoj</p>' }, { text: 'x', html: '<b>Ján</b>' }).html).to.equal('<p>Ahoj</p><div class="crm-signature">-- <br><b>Ján</b></div>');
  });

  it('an empty or missing signature leaves the body as it is', () => {
    expect(withSignature({ text: 'Ahoj' }, null)).to.deep.equal({ text: 'Ahoj' });
    expect(withSignature({ text: 'Ahoj', html: '<p>x</p>' }, { text: ' ', html: null })).to.deep.equal({ text: 'Ahoj', html: '<p>x</p>' });
  });
});

describe('forward subject (pure)', () => {
  it('"Fwd: " exactly once, whatever forward prefixes the original carries', async () => {
    const { forwardSubject } = await import('../../src/sending/compose.js');
    expect(forwardSubject('Zmluva')).to.equal('Fwd: Zmluva');
    expect(forwardSubject('Fwd: Zmluva')).to.equal('Fwd: Zmluva');
    expect(forwardSubject('FW: WG: fwd:Zmluva')).to.equal('Fwd: Zmluva');
    expect(forwardSubject('Re: Zmluva')).to.equal('Fwd: Re: Zmluva');
    expect(forwardSubject(null)).to.equal('Fwd:');
  });
});
