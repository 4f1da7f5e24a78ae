import net from 'node:net';

/** Loopback only: Prometheus (or node_exporter's textfile collector) on the same host. */
export const DEFAULT_METRICS_ALLOW = '127.0.0.0/8,::1/128';

/**
 * METRICS_ALLOW: `none` (endpoint off) or a comma-separated list of addresses and CIDR ranges.
 * Returns the problem as a message, or the parsed entries.
 */
export function parseAllowList(text: string): { entries: string[] } | { problem: string } {
  const trimmed = text.trim();
  if (trimmed === 'none') return { entries: [] };
  const entries = trimmed
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) return { problem: 'prázdny zoznam (použite none na vypnutie)' };
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split('/');
    const family = net.isIP(address ?? '');
    const maxPrefix = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
    if (family === 0 || !prefixOk || extra !== undefined) return { problem: `neplatná adresa alebo rozsah "${entry}"` };
  }
  return { entries };
}

/** A matcher over the parsed entries; IPv4-mapped IPv6 clients (::ffff:a.b.c.d) count as IPv4. */
export function createAllowMatcher(entries: string[]): (ip: string | undefined) => boolean {
  const list = new net.BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const type = net.isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return (ip) => {
    if (!ip) return false;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    const address = mapped ? mapped[1] : ip;
    const family = net.isIP(address);
    if (family === 0) return false;
    return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  };
}
