import ipaddr from 'ipaddr.js';

/**
 * What a limit counts as one client: an IPv4 address as it is (also in its IPv4-mapped IPv6 form),
 * an IPv6 address's /64 (one subscriber usually holds a whole /64, and could rotate through it).
 */
export function clientOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const hextets = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${hextets.join(':')}::/64`;
}
