import { expect } from 'chai';
import { presentCompany } from '../../src/companies/company-presenter.js';
import { companyDomainOf, isFreeMailDomain, mailDomainOf } from '../../src/companies/free-mail-domains.js';

describe('unit: companies from mail domains', () => {
  it('knows the free-mail providers of the list, Slovak and Czech ones included', () => {
    for (const domain of [
      'gmail.com',
      'googlemail.com',
      'outlook.com',
      'hotmail.com',
      'yahoo.com',
      'icloud.com',
      'proton.me',
      'azet.sk',
      'zoznam.sk',
      'centrum.sk',
      'post.sk',
      'atlas.sk',
      'pobox.sk',
      'seznam.cz',
      'email.cz',
      'centrum.cz',
      'volny.cz',
    ]) {
      expect(isFreeMailDomain(domain), domain).to.equal(true);
    }
  });

  it("takes a provider's country domains (gmx.de, yahoo.co.uk) but not a firm's domain under the same label", () => {
    for (const domain of ['gmx.de', 'gmx.net', 'gmx.at', 'yahoo.co.uk', 'web.de', 'hotmail.sk']) expect(isFreeMailDomain(domain), domain).to.equal(true);
    for (const domain of ['gmx.firma.sk', 'web.kovac.sk', 'gmxfirma.sk', 'mail.gmail.com.firma.sk', 'firma.sk', 'gmail.company.com'])
      expect(isFreeMailDomain(domain), domain).to.equal(false);
  });

  it('reads the lower-case domain after the last "@", and no company domain for free mail', () => {
    expect(mailDomainOf('Jan.Kovac@Firma.SK')).to.equal('firma.sk');
    expect(mailDomainOf('"a@b"@firma.sk')).to.equal('firma.sk');
    expect(mailDomainOf('no-domain@')).to.equal(null);
    expect(mailDomainOf('nothing')).to.equal(null);
    expect(companyDomainOf('jan@firma.sk')).to.equal('firma.sk');
    expect(companyDomainOf('jan@GMAIL.com')).to.equal(null);
  });

  it('shows the domain as the name of a company nobody named', () => {
    const company = {
      id: 'c',
      domain: 'firma.sk',
      name: null,
      notes: null,
      registrationNumber: null,
      vatId: null,
      address: null,
      phone: null,
      website: null,
      contactCount: 1,
      lastEmailAt: null,
      createdAt: new Date(0),
      updatedAt: new Date(0),
    };
    expect(presentCompany(company).name).to.equal('firma.sk');
    expect(presentCompany({ ...company, name: 'Firma s.r.o.' }).name).to.equal('Firma s.r.o.');
  });
});
