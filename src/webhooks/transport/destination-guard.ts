import ipaddr from 'ipaddr.js';
import { HostResolver } from './host-resolver';

/** A webhook URL refused, with what is wrong in words a caller can act on. */
export class WebhookUrlRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookUrlRefused';
  }
}

export const FORBIDDEN_ADDRESS =
  'url must not point to a loopback, private, link-local, unique-local, multicast or metadata address';

/**
 * Whether an endpoint may be sent to this address: only global unicast passes. Loopback, private,
 * link-local (and so the 169.254.169.254 metadata service), unique-local (AWS's fd00:ec2::254
 * included), multicast, unspecified, broadcast, carrier-grade NAT and reserved ranges are refused,
 * also as an IPv4-mapped IPv6 address or through a v6 prefix that embeds a v4 one.
 */
export function isForbiddenAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return true;
  return ipaddr.process(ip).range() !== 'unicast';
}

export type HostLookup = (host: string) => Promise<string[]>;

const dnsResolver = new HostResolver();
const dnsLookup: HostLookup = (host) => dnsResolver.addresses(host);

/**
 * Checks a webhook URL at create and update: `https` only, unless private URLs are allowed
 * (development and tests, where `http` passes too); no credentials; and the host neither is nor
 * resolves to a forbidden address. Each delivery checks the address it actually connects to again,
 * so a name that resolves elsewhere later (DNS rebinding) is still refused there.
 */
export async function checkWebhookUrl(
  raw: string,
  options: { allowPrivate: boolean; lookup?: HostLookup },
): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlRefused('url must be an absolute URL, like https://example.com/webhooks');
  }
  if (url.protocol !== 'https:' && !(options.allowPrivate && url.protocol === 'http:'))
    throw new WebhookUrlRefused('url must use https');
  if (url.username || url.password) throw new WebhookUrlRefused('url must not carry a user name or password');
  if (options.allowPrivate) return url;

  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host)) {
    if (isForbiddenAddress(host)) throw new WebhookUrlRefused(FORBIDDEN_ADDRESS);
    return url;
  }
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost') || name.endsWith('.internal'))
    throw new WebhookUrlRefused(FORBIDDEN_ADDRESS);
  let addresses: string[];
  try {
    addresses = await (options.lookup ?? dnsLookup)(host);
  } catch {
    throw new WebhookUrlRefused(`url's host ${host} does not resolve`);
  }
  if (addresses.length === 0) throw new WebhookUrlRefused(`url's host ${host} does not resolve`);
  if (addresses.some(isForbiddenAddress)) throw new WebhookUrlRefused(FORBIDDEN_ADDRESS);
  return url;
}
