import ipaddr from 'ipaddr.js';

/** An inclusive range of addresses, as numbers. */
type Span = readonly [bigint, bigint];

const IPV4_END = (1n << 32n) - 1n;
const IPV6_END = (1n << 128n) - 1n;
/** `::ffff:0:0/96`: where IPv4 addresses sit inside IPv6; a candidate in it is compared as IPv4. */
const MAPPED_START = 0xffffn << 32n;
const MAPPED_END = MAPPED_START + IPV4_END;

function toNumber(bytes: number[]): bigint {
  return bytes.reduce((value, byte) => (value << 8n) | BigInt(byte), 0n);
}

function spanOf(address: bigint, prefix: number, bits: number): Span {
  const size = 1n << BigInt(bits - prefix);
  const start = (address / size) * size;
  return [start, start + size - 1n];
}

/** Whether the union of `spans` holds every number from `from` to `to`. */
function covers(spans: Span[], from: bigint, to: bigint): boolean {
  let next = from;
  for (const [start, end] of [...spans].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    if (start > next) break;
    if (end >= next) next = end + 1n;
    if (next > to) return true;
  }
  return next > to;
}

/**
 * The problems of a `TRUST_PROXY` list of addresses and CIDRs (empty when there are none), read the
 * way Fastify's proxy-addr reads it: an IPv4 range holds IPv4 callers (and their IPv4-mapped IPv6
 * form), an IPv6 range within `::ffff:0:0/96` holds IPv4 callers, any other IPv6 range holds IPv6
 * callers. A list whose ranges together hold every IPv4 or every IPv6 address is refused like
 * `true`: every such caller could then pick its own address with X-Forwarded-For.
 */
export function trustedRangeProblems(list: string): string[] {
  const problems: string[] = [];
  const ipv4: Span[] = [];
  const ipv6: Span[] = [];
  for (const entry of list.split(',').map((part) => part.trim())) {
    const slash = entry.lastIndexOf('/');
    const text = slash === -1 ? entry : entry.slice(0, slash);
    // Four-part IPv4 only: `10.0.0` would quietly name 10.0.0.0.
    if (!ipaddr.IPv4.isValidFourPartDecimal(text) && !ipaddr.IPv6.isValid(text)) {
      problems.push(`TRUST_PROXY: "${entry}" is not an address or a CIDR`);
      continue;
    }
    let address = ipaddr.parse(text);
    if (slash === -1 && address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
      address = (address as ipaddr.IPv6).toIPv4Address();
    }
    const bits = address.kind() === 'ipv4' ? 32 : 128;
    const rangeText = slash === -1 ? String(bits) : entry.slice(slash + 1);
    let prefix: number | null = null;
    if (/^\d+$/.test(rangeText)) prefix = Number(rangeText);
    else if (address.kind() === 'ipv4' && ipaddr.IPv4.isValidFourPartDecimal(rangeText))
      prefix = ipaddr.IPv4.parse(rangeText).prefixLengthFromSubnetMask();
    if (prefix === null || prefix < 0 || prefix > bits) {
      problems.push(`TRUST_PROXY: "${entry}" has no valid prefix length or netmask`);
      continue;
    }
    const value = toNumber(address.toByteArray());
    if (address.kind() === 'ipv4') {
      ipv4.push(spanOf(value, prefix, 32));
    } else if (prefix >= 96 && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
      ipv4.push(spanOf(value & IPV4_END, prefix - 96, 32));
    } else {
      ipv6.push(spanOf(value, prefix, 128));
    }
  }
  const everyIpv4 = covers(ipv4, 0n, IPV4_END);
  // IPv4-mapped callers are compared as IPv4: the IPv6 callers are every address but those.
  const everyIpv6 = covers(ipv6, 0n, MAPPED_START - 1n) && covers(ipv6, MAPPED_END + 1n, IPV6_END);
  if (everyIpv4 || everyIpv6) {
    problems.push(
      `TRUST_PROXY must not trust every ${everyIpv4 ? 'IPv4' : 'IPv6'} address (as 0.0.0.0/0 or ::/0 do, alone or together): ` +
        'like true, that would let every client choose its own address; name the proxies in front of the service',
    );
  }
  return problems;
}
