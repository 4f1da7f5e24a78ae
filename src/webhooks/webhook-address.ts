import dns from 'node:dns/promises';
import net from 'node:net';
import { createAllowMatcher } from '../shared/ip-allow-list.js';

/**
 * SSRF guard of the webhooks (issue 48): a receiver must be a public address unless an operator
 * listed it in WEBHOOK_ALLOWED_PRIVATE_HOSTS (host names or addresses/CIDRs). Checked on the literal
 * at create/PATCH time and on the resolved address at every delivery, which then connects to exactly
 * that address (a second lookup could answer otherwise: DNS rebinding).
 */
const BLOCKED = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8], // unspecified, "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, 169.254.169.254 the cloud metadata
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  BLOCKED.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  BLOCKED.addSubnet(address, prefix, 'ipv6');

export interface PrivateAllowList {
  hosts: Set<string>;
  matches: (ip: string) => boolean;
}

/** WEBHOOK_ALLOWED_PRIVATE_HOSTS: comma separated host names, addresses and CIDR ranges. */
export function parsePrivateAllowList(text: string): PrivateAllowList {
  const entries = text
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  const ranges = entries.filter((e) => net.isIP(e.split('/')[0]) !== 0);
  const hosts = new Set(entries.filter((e) => !ranges.includes(e)));
  const matcher = createAllowMatcher(ranges);
  return { hosts, matches: (ip) => matcher(ip) };
}

/** Whether the address is loopback, private, link-local, metadata, multicast or unspecified. */
export function isPrivateAddress(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const address = mapped ? mapped[1] : ip;
  const family = net.isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The URL's host without IPv6 brackets, lower case. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** Null when the URL may be stored; else why not (http/https only; a literal private address not allowed). */
export function urlProblem(text: string, allow: PrivateAllowList): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'url nie je platná adresa';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url musí začínať http:// alebo https://';
  if (url.username || url.password) return 'url nesmie obsahovať meno a heslo';
  const host = hostOf(url);
  if (net.isIP(host) !== 0 && isPrivateAddress(host) && !allow.hosts.has(host) && !allow.matches(host)) {
    return 'url smeruje na súkromnú alebo lokálnu adresu (WEBHOOK_ALLOWED_PRIVATE_HOSTS)';
  }
  return null;
}

export type Lookup = (host: string) => Promise<Array<{ address: string; family: number }>>;

const systemLookup: Lookup = (host) => dns.lookup(host, { all: true, verbatim: true });

/**
 * The address to connect to, checked: every address the name resolves to must be public (or
 * allowed), so a name that answers with one public and one private address is refused.
 */
export async function resolveDestination(url: URL, allow: PrivateAllowList, lookup: Lookup = systemLookup): Promise<{ address: string; family: 4 | 6 }> {
  const host = hostOf(url);
  const hostAllowed = allow.hosts.has(host);
  const found = net.isIP(host) !== 0 ? [{ address: host, family: net.isIP(host) }] : await lookup(host);
  if (found.length === 0) throw new Error(`host ${host} has no address`);
  for (const { address } of found) {
    if (isPrivateAddress(address) && !hostAllowed && !allow.matches(address)) throw new Error(`refused: ${host} resolves to a private or local address (${address})`);
  }
  const first = found[0];
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
