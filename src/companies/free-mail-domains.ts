/**
 * Mail domains anyone can get an address at: a correspondent there is a private person, not the
 * organisation behind the domain, so such a domain is never a company (issue 38).
 *
 * Source: the large international providers (Google, Microsoft, Yahoo, Apple, AOL, GMX, Proton,
 * Zoho, Yandex, Mail.ru, Tutanota, Fastmail) and the free-mail portals of Slovakia and the Czech
 * Republic, where the staff's correspondents live (Azet, Zoznam, Centrum, Post.sk, Atlas, Pobox,
 * Seznam, Email.cz, Volny, Tiscali). Maintained by hand: add a domain here when a private address
 * shows up as a company. A domain added later stops making new companies at once; a release that
 * adds one also ships a migration deleting its company row (contacts keep working: their
 * company_id is set to NULL by the foreign key). See docs/adr/0117-companies-from-mail-domains.md.
 */
export const FREE_MAIL_DOMAINS: readonly string[] = [
  // International
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'outlook.sk',
  'outlook.cz',
  'hotmail.com',
  'hotmail.sk',
  'hotmail.cz',
  'live.com',
  'live.sk',
  'live.cz',
  'msn.com',
  'yahoo.com',
  'ymail.com',
  'rocketmail.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'protonmail.ch',
  'pm.me',
  'zohomail.com',
  'yandex.com',
  'yandex.ru',
  'mail.ru',
  'tutanota.com',
  'tuta.io',
  'fastmail.com',
  'mail.com',
  'email.com',
  // Slovakia
  'azet.sk',
  'zoznam.sk',
  'centrum.sk',
  'post.sk',
  'atlas.sk',
  'pobox.sk',
  'inmail.sk',
  'szm.sk',
  'stonline.sk',
  'orangemail.sk',
  'chello.sk',
  // Czech Republic
  'seznam.cz',
  'email.cz',
  'centrum.cz',
  'post.cz',
  'volny.cz',
  'atlas.cz',
  'tiscali.cz',
  'quick.cz',
  'tiscali.sk',
];

/**
 * Providers with one domain per country (gmx.de, gmx.net, gmx.at, ..., yahoo.de, yahoo.co.uk):
 * every domain that starts with one of these labels followed by a dot.
 */
export const FREE_MAIL_PREFIXES: readonly string[] = ['gmx', 'web', 'yahoo', 'hotmail', 'outlook', 'live', 't-online', 'freenet', 'libero'];

const EXACT = new Set(FREE_MAIL_DOMAINS);
/** Only providers whose name alone is theirs: "web.de" yes, but "web.company.sk" must stay a company. */
const COUNTRY_DOMAIN = /^(?:co\.|com\.)?[a-z]{2,3}$/;

/** Whether a (lower-case) domain is a free-mail provider's. */
export function isFreeMailDomain(domain: string): boolean {
  if (EXACT.has(domain)) return true;
  const dot = domain.indexOf('.');
  if (dot <= 0) return false;
  return FREE_MAIL_PREFIXES.includes(domain.slice(0, dot)) && COUNTRY_DOMAIN.test(domain.slice(dot + 1));
}

/** The lower-case domain of a mail address (after its last "@"), or null when it has none. */
export function mailDomainOf(address: string): string | null {
  const at = address.lastIndexOf('@');
  const domain =
    at < 0
      ? ''
      : address
          .slice(at + 1)
          .trim()
          .toLowerCase();
  return domain === '' ? null : domain;
}

/** The company domain of an address: its domain unless it is a free-mail provider's (null then). */
export function companyDomainOf(address: string): string | null {
  const domain = mailDomainOf(address);
  return domain && !isFreeMailDomain(domain) ? domain : null;
}
