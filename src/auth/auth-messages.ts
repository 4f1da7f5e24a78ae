/** Slovak messages shared by the auth services and routes (their own module: no import circle). */

/** One message for unknown user, wrong password and expired temporary password: no user enumeration. */
export const INVALID_CREDENTIALS = 'Nesprávne používateľské meno alebo heslo';
export const WRONG_CURRENT_PASSWORD = 'Aktuálne heslo je nesprávne';
/** docs/contract.md §4.1 rule 5: the one message for every refresh failure. */
export const REFRESH_INVALID = 'Refresh token expiroval alebo je neplatný';
/** docs/contract.md §3 (the onboarding gate): the answer of every other endpoint while the password is temporary. */
export const PASSWORD_CHANGE_REQUIRED = 'Najprv si nastavte vlastné heslo (POST /api/auth/set-password)';
export const CSRF_REJECTED = 'Požiadavka z cudzieho pôvodu (Origin) bola odmietnutá';
export const DUPLICATE_COOKIE = 'Požiadavka obsahuje prihlasovaciu cookie viackrát; vymažte cookies a prihláste sa znova';
