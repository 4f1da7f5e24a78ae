/** The Slovak and Czech common passwords (src/auth/common-passwords-sk-cz.ts; issue 52, finding 19). */
import { expect } from 'chai';
import { isCommonSlovakOrCzechPassword } from '../../src/auth/common-passwords-sk-cz.js';
import { PasswordMessages, passwordPolicyProblem } from '../../src/auth/password-policy.js';

describe('unit: Slovak and Czech common passwords', () => {
  it('refuses a listed word with digits or punctuation around it, case and diacritics aside', () => {
    for (const password of ['heslo12345', 'Heslo12345', 'HESLO-2026!', '12345heslo', 'Tajneheslo1', 'Slovensko2026', 'milačik1234', 'Kočička2020', 'sparta1893!!']) {
      expect(isCommonSlovakOrCzechPassword(password), password).to.equal(true);
      expect(passwordPolicyProblem(password, 'jana.novakova'), password).to.equal(PasswordMessages.common);
    }
  });

  it('accepts a password that only contains such a word among others', () => {
    for (const password of ['Heslo-Silné-Kôň-2026', 'moje staré heslo z práce', 'Bratislava-Viedeň-Praha', 'heslo12345x', 'Admin-Heslo-2026']) {
      expect(isCommonSlovakOrCzechPassword(password), password).to.equal(false);
      expect(passwordPolicyProblem(password, 'jana.novakova'), password).to.equal(null);
    }
  });
});
