import { ValidationError } from '../errors/app-errors.js';
import { lazyRequire } from '../shared/lazy-require.js';
import { isCommonSlovakOrCzechPassword } from './common-passwords-sk-cz.js';

// A CommonJS package without types: ~50k most common passwords from real breaches (Mozilla). Loaded
// when a password is first checked (ADR 0113), not by every command that imports the user area.
const commonPasswordList = lazyRequire<{ test(password: string): boolean }>('fxa-common-password-list');

/** docs/contract.md §4.1: 10 to 128 characters, counted as the user sees them (code points, not UTF-16 units or bytes). */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 128;

export const PasswordMessages = {
  tooShort: `Heslo musí mať aspoň ${PASSWORD_MIN_LENGTH} znakov`,
  tooLong: `Heslo môže mať najviac ${PASSWORD_MAX_LENGTH} znakov`,
  equalsUsername: 'Heslo nesmie byť rovnaké ako používateľské meno',
  common: 'Heslo je príliš bežné, zvoľte si iné',
  equalsTemporary: 'Nové heslo nesmie byť rovnaké ako dočasné heslo',
  equalsCurrent: 'Nové heslo sa musí líšiť od aktuálneho hesla',
} as const;

/**
 * The checks that need no stored hash. Comparison with the temporary password needs bcrypt and is
 * made by the caller (AuthService), after these cheap checks have passed.
 */
export function passwordPolicyProblem(password: string, username: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return PasswordMessages.tooShort;
  if (length > PASSWORD_MAX_LENGTH) return PasswordMessages.tooLong;
  if (password.trim().toLowerCase() === username.trim().toLowerCase()) return PasswordMessages.equalsUsername;
  // The list holds lower-case entries; "Password123" is as guessable as "password123".
  if (commonPasswordList().test(password) || commonPasswordList().test(password.toLowerCase())) return PasswordMessages.common;
  // The list above is English; the staff are Slovak and Czech (common-passwords-sk-cz.ts).
  if (isCommonSlovakOrCzechPassword(password)) return PasswordMessages.common;
  return null;
}

export function assertPasswordPolicy(password: string, username: string): void {
  const problem = passwordPolicyProblem(password, username);
  if (problem) throw weakPassword(problem);
}

export function weakPassword(message: string): ValidationError {
  return new ValidationError(message, [{ field: 'newPassword', message }]);
}
