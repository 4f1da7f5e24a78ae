/**
 * DATABASE_URL is checked before anything parses it (issue 52, finding 17): sequelize hands it to
 * Node's legacy url.parse, which announces a malformed URL in a DEP0170 warning on stderr with the
 * whole URL, password included. So the URL must be one that url.parse takes without a warning, and
 * every message here names the part that is wrong, never the value (the configuration check puts
 * "DATABASE_URL:" before it).
 */
const SCHEME = /^postgres(ql)?:\/\//;
/** What url.parse accepts in a host name without a warning (ASCII letters, digits, . - + _; empty: ?host= or the default), or an IPv6 literal. */
const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.+_-]*)$/;
const PORT = /^\d{1,5}$/;
const URL_CHARACTERS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?%[\]]*$/;

export const DatabaseUrlMessages = {
  scheme: 'DATABASE_URL musí začínať postgres:// alebo postgresql://',
  malformed: 'nie je platná adresa URL: medzeru, # \\ a iné znaky mimo povolených v mene a hesle treba zapísať percentovým kódovaním (%20, %23, %5C, ...)',
  port: 'port musí byť číslo od 1 do 65535 (znaky : @ / ? # % v mene alebo hesle treba zapísať ako %3A %40 %2F %3F %23 %25)',
  host: 'názov servera môže obsahovať len písmená bez diakritiky, číslice a . - _ (alebo IPv6 adresu v [ ]); socket zadajte ako ?host=/cesta',
  escape: 'meno, heslo alebo názov databázy obsahuje neplatnú %-sekvenciu',
} as const;

/** Nothing after the host, or `:` and a port number. */
function portIsValid(portPart: string): boolean {
  if (portPart === '') return true;
  const port = portPart.slice(1);
  return portPart.startsWith(':') && PORT.test(port) && Number(port) >= 1 && Number(port) <= 65_535;
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The problem with the URL as a message that quotes none of it, or null when it is usable. The
 * authority is split as url.parse splits it (the user info ends at the last @ before the path), and
 * the host and port are held to what it takes without a warning; the empty host of
 * `postgres://crm@/crm?host=/run/postgresql` stays allowed.
 */
export function databaseUrlProblem(value: string): string | null {
  if (!SCHEME.test(value)) return DatabaseUrlMessages.scheme;
  // Only the characters RFC 3986 allows unencoded (url.parse rewrites or trips on the others: \ { } ^ | ...);
  // a fragment has no meaning here and is the usual sign of an unencoded # in a password.
  if (!URL_CHARACTERS.test(value)) return DatabaseUrlMessages.malformed;
  const rest = value.replace(SCHEME, '');
  const authorityEnd = rest.search(/[/?]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  const at = authority.lastIndexOf('@');
  const userInfo = at === -1 ? '' : authority.slice(0, at);
  const hostPort = authority.slice(at + 1);
  // The host runs to the first colon, or to the closing bracket of an IPv6 literal; the port follows.
  const hostLength = hostPort.startsWith('[') ? hostPort.indexOf(']') + 1 || hostPort.length : hostPort.search(/:|$/);
  const host = hostPort.slice(0, hostLength);
  const portPart = hostPort.slice(hostLength);
  if (!portIsValid(portPart)) return DatabaseUrlMessages.port;
  if (!HOST.test(host)) return DatabaseUrlMessages.host;
  const path = authorityEnd === -1 ? '' : rest.slice(authorityEnd).replace(/\?.*$/, '');
  if (!decodes(userInfo) || !decodes(path)) return DatabaseUrlMessages.escape;
  return null;
}
