import type { LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { isForbiddenAddress } from './destination-guard';
import { HostResolver } from './host-resolver';

/** How much of a response body a delivery keeps. */
export const RESPONSE_BODY_LIMIT = 1024;

export interface AttemptOutcome {
  ok: boolean;
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number;
  error: string | null;
}

export interface WebhookSenderOptions {
  timeoutMs: number;
  /** Development and tests only: send to loopback and private addresses too. */
  allowPrivate: boolean;
}

/**
 * Sends one delivery attempt: a POST of the event, never following a redirect, bounded in time as a
 * whole (connection, answer and the body kept), keeping at most 1 KiB of the answer. The address connected to is the one checked: the name
 * is resolved here and a forbidden address is never dialled, whatever the name resolved to when the
 * endpoint was created. Never throws: a failure is the outcome's `error`.
 */
export class WebhookSender {
  private readonly resolver = new HostResolver();
  private readonly lookup: LookupFunction;
  /**
   * Connections to an endpoint are kept open between attempts, as a receiver under a stream of events
   * expects: a reused connection was checked when it connected, and its address does not change.
   */
  private readonly agents = { http: new HttpAgent(KEEP_ALIVE), https: new HttpsAgent(KEEP_ALIVE) };

  constructor(private readonly options: WebhookSenderOptions) {
    this.lookup = guardedLookup(this.resolver, options.allowPrivate);
  }

  /** Closes the connections kept open and stops the name lookups under way: the attempts still running fail at once. */
  close(): void {
    this.resolver.cancel();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  send(url: string, body: string, headers: Record<string, string>): Promise<AttemptOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise<AttemptOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: Omit<AttemptOutcome, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        resolve({ ...outcome, durationMs: elapsed() });
      };
      const fail = (error: string) => finish({ ok: false, responseStatus: null, responseBody: null, error });

      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return fail('the endpoint URL is not valid');
      }
      const literal = target.hostname.replace(/^\[|\]$/g, '');
      if (!this.options.allowPrivate && ipaddr.isValid(literal) && isForbiddenAddress(literal))
        return fail(refused(literal));

      const secure = target.protocol === 'https:';
      const send = secure ? httpsRequest : httpRequest;
      const deadline = AbortSignal.timeout(this.options.timeoutMs);
      const request = send(target, {
        signal: deadline,
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'platform-service-webhooks/1',
        },
        lookup: this.lookup,
        agent: secure ? this.agents.https : this.agents.http,
      });
      request.on('socket', (socket) => {
        // A kept connection was checked when it was made; only a new one connects.
        if (!socket.connecting) return;
        socket.once('connect', () => {
          const remote = socket.remoteAddress;
          if (!this.options.allowPrivate && remote && isForbiddenAddress(remote)) {
            fail(refused(remote));
            request.destroy();
          }
        });
      });
      request.on('error', (error) =>
        fail(deadline.aborted ? `timed out after ${this.options.timeoutMs} ms` : error.message),
      );
      request.on('response', (response) => {
        readCapped(response, (text) => {
          const status = response.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          finish({
            ok,
            responseStatus: status,
            responseBody: text,
            error: ok ? null : `the endpoint answered ${status}`,
          });
        });
      });
      request.end(body);
    });
  }
}

/** Idle connections are closed after a while, sooner than receivers usually close theirs. */
const KEEP_ALIVE = { keepAlive: true, maxFreeSockets: 16, timeout: 4_000 };

function refused(address: string): string {
  return `destination address ${address} is not allowed`;
}

/** Resolves the name (`HostResolver`) and keeps only the addresses a webhook may reach; none left is an error. */
function guardedLookup(resolver: HostResolver, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolver.addresses(hostname).then(
      (found) => {
        const wanted =
          options.family === 4 || options.family === 6
            ? found.filter((address) => isIP(address) === options.family)
            : found;
        const addresses: LookupAddress[] = wanted.map((address) => ({ address, family: isIP(address) }));
        const allowed = allowPrivate ? addresses : addresses.filter((entry) => !isForbiddenAddress(entry.address));
        if (allowed.length === 0) {
          const denied = Object.assign(new Error(refused(addresses[0]?.address ?? hostname)), {
            code: 'EADDRNOTALLOWED',
          });
          return callback(denied, '', 0);
        }
        if (options.all)
          return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, allowed);
        callback(null, allowed[0].address, allowed[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** Reads at most RESPONSE_BODY_LIMIT bytes of the body, then stops reading it. */
function readCapped(response: IncomingMessage, done: (text: string) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const end = () => {
    if (finished) return;
    finished = true;
    done(Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8'));
  };
  response.on('data', (chunk: Buffer) => {
    if (finished) return;
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_BODY_LIMIT) {
      end();
      response.destroy();
    }
  });
  response.on('end', end);
  response.on('close', end);
  response.on('error', end);
}
