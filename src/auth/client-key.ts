import ipaddr from 'ipaddr.js';

/**
 * The key a client is throttled by. IPv4 clients by their address; IPv6 clients by their /64: one
 * subscriber usually gets a whole /64 (or more) and can pick a fresh address in it for every request.
 * IPv4-mapped IPv6 addresses (::ffff:a.b.c.d, what a dual-stack socket reports) count as IPv4.
 */
export function clientKey(ip: string | null | undefined): string {
  if (!ip || !ipaddr.isValid(ip)) return ip ? `other:${ip.slice(0, 64)}` : 'unknown';
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const groups = (address as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${groups.join(':')}::/64`;
}
