/** The Slovak messages of API tokens, shared by the service and the auth middleware. */
export const API_TOKEN_NOT_FOUND = 'API token neexistuje';
export const ADMIN_SCOPE_REFUSED = 'Oprávnenie admin môže mať iba token administrátora';
export const EXPIRY_IN_PAST = 'Platnosť tokenu musí skončiť v budúcnosti';
export const TOO_MANY_TOKENS = 'Máte priveľa API tokenov; zrušte tie, ktoré nepoužívate';
/** A path no token may call (password, sessions, logout, token management, the event stream). */
export const NOT_WITH_API_TOKEN = 'Túto akciu nemožno vykonať s API tokenom; prihláste sa';
export const SCOPE_MISSING = 'API token nemá na túto akciu oprávnenie';
