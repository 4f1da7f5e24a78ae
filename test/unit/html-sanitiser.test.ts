import { expect } from 'chai';
import { normaliseCid, REMOTE_IMAGE_ATTRIBUTE, sanitiseEmailHtml } from '../../src/emails/html-sanitiser.js';

const none = { inlineImages: new Map<string, string>(), remoteImages: false };

describe('unit: the HTML of an email', () => {
  it('removes scripts, event handlers, javascript: links, forms, frames and style sheets', () => {
    const { html } = sanitiseEmailHtml(
      `<p onclick="steal()">Dobrý deň</p><script>alert(1)</script><a href="javascript:alert(1)">x</a><form action="https://evil.test"><input name="iban"></form>
       <iframe src="https://evil.test"></iframe><style>body{background:url(https://t.test/p)}</style><svg onload="x()"></svg>`,
      none,
    );
    expect(html).to.contain('Dobrý deň');
    expect(html).not.to.match(/script|onclick|onload|javascript:|<form|<input|<iframe|<style|<svg|evil\.test|t\.test/i);
  });

  it('opens links outside the app, telling the other site nothing', () => {
    const { html } = sanitiseEmailHtml('<a href="https://firma.sk/faktura" target="_self" rel="opener">faktúra</a><a href="mailto:jana@firma.sk">Jana</a>', none);
    expect(html).to.contain('<a href="https://firma.sk/faktura" target="_blank" rel="noopener noreferrer">');
    expect(html).to.contain('href="mailto:jana@firma.sk"');
  });

  it('holds remote images back in data-crm-src unless asked, and never sends a Referer with them', () => {
    const dirty = '<img src="https://tracker.test/pixel.gif" alt="logo">';
    const held = sanitiseEmailHtml(dirty, none);
    expect(held.blockedImages).to.equal(1);
    expect(held.html).to.equal(`<img alt="logo" referrerpolicy="no-referrer" ${REMOTE_IMAGE_ATTRIBUTE}="https://tracker.test/pixel.gif" />`);
    const loaded = sanitiseEmailHtml(dirty, { ...none, remoteImages: true });
    expect(loaded.blockedImages).to.equal(0);
    expect(loaded.html).to.contain('src="https://tracker.test/pixel.gif"');
  });

  it("drops a sender's own data-crm-src: only the sanitiser marks a held-back image", () => {
    const { html, blockedImages } = sanitiseEmailHtml(
      `<img ${REMOTE_IMAGE_ATTRIBUTE}="javascript:alert(1)"><img src="cid:nothing" ${REMOTE_IMAGE_ATTRIBUTE}="https://x.test/a">`,
      none,
    );
    expect(blockedImages).to.equal(0);
    expect(html).not.to.contain(REMOTE_IMAGE_ATTRIBUTE);
  });

  it('points cid: images at their download URL and reports which parts the body used', () => {
    const inlineImages = new Map([['logo@firma.sk', '/api/emails/e1/attachments/b1']]);
    const { html, referencedCids } = sanitiseEmailHtml('<img src="cid:Logo%40Firma.sk"><img src="cid:unknown@x">', { inlineImages, remoteImages: false });
    expect(html).to.equal('<img src="/api/emails/e1/attachments/b1" /><img />');
    expect([...referencedCids]).to.deep.equal(['logo@firma.sk']);
    expect(normaliseCid(' <A%40b> ')).to.equal('a@b');
  });

  it('keeps harmless inline styles and drops declarations that fetch or run something, also spelled with escapes', () => {
    const { html } = sanitiseEmailHtml(
      '<p style="color: red; background: url(https://t.test/p); font-weight: bold; width: expression(alert(1)); background-image: \\75 rl(https://t.test/q)">x</p>',
      none,
    );
    expect(html).to.match(/color:\s*red/);
    expect(html).to.match(/font-weight:\s*bold/);
    expect(html).not.to.match(/url|expression|t\.test|\\75/);
  });

  it('keeps styles only from the allow-list: colours and boxes stay, nothing may overlay the app', () => {
    const { html } = sanitiseEmailHtml(
      '<div style="position: fixed; top: 0; z-index: 9999; color: rgb(10, 20, 30); border: 1px solid #ccc; transform: scale(9); content: \'x\'">x</div>',
      none,
    );
    expect(html).to.match(/color:\s*rgb\(10, 20, 30\)/);
    expect(html).to.match(/border:\s*1px solid #ccc/);
    expect(html).not.to.match(/position|z-index|top|transform|content/);
  });
});
