import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

/** How long one DNS query waits for an answer, and how often it is sent, before the name counts as unresolved. */
const QUERY_TIMEOUT_MS = 2_000;
const QUERY_TRIES = 2;

/**
 * The addresses of a webhook endpoint's host, asked of DNS (A and AAAA records) with Node's own
 * resolver, which runs on the event loop. `dns.lookup` (the operating system's `getaddrinfo`) runs
 * on libuv's thread pool of four threads, which bcrypt, file writes and crypto share: endpoints
 * whose names resolve slowly, which any tenant can register, held every thread and stalled the
 * whole service, logins included. The hosts file is not read (`localhost` and `*.localhost` are
 * loopback by definition, RFC 6761): an endpoint is a public name.
 */
export class HostResolver {
  private readonly resolver = new Resolver({ timeout: QUERY_TIMEOUT_MS, tries: QUERY_TRIES });

  /** `servers`: the DNS servers to ask (`host:port`); the system's by default. */
  constructor(servers?: string[]) {
    if (servers) this.resolver.setServers(servers);
  }

  async addresses(host: string): Promise<string[]> {
    if (isIP(host)) return [host];
    const name = host.toLowerCase().replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) return ['127.0.0.1', '::1'];
    const [v4, v6] = await Promise.allSettled([this.resolver.resolve4(name), this.resolver.resolve6(name)]);
    const found = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
    if (found.length > 0) return found;
    throw v4.status === 'rejected' ? (v4.reason as Error) : new Error(`${host} has no address`);
  }

  /** Stops the queries under way (they fail with ECANCELLED). */
  cancel(): void {
    this.resolver.cancel();
  }
}
