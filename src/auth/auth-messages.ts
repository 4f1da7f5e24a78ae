/** Slovak messages shared by the auth services and routes (their own module: no import circle). */

/** One message for unknown user, wrong password and expired temporary password: no user enumeration. */
export const INVALID_CREDENTIALS = 'Nesprávne používateľské meno alebo heslo';
export const WRONG_CURRENT_PASSWORD = 'Aktuálne heslo je nesprávne';
/** Spec 4.1 rule 5: the one message for every refresh failure. */
export const REFRESH_INVALID = 'Refresh token expiroval alebo je neplatný';
