import { HttpException, HttpStatus, Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import ipaddr from 'ipaddr.js';
import { authConfig } from '../../config/auth.config';
import { LoginAttemptsRepository } from './login-attempts.repository';

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;
/** How long a successful login keeps its address exempt from the per-email limit. */
export const KNOWN_ADDRESS_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

function tooMany(message: string, windowSeconds: number): HttpException {
  return new HttpException(`${message}. Try again in ${windowSeconds} seconds`, HttpStatus.TOO_MANY_REQUESTS);
}

/**
 * Limits logins the way Auth0's brute-force protection counts them, in the database so every
 * instance counts together:
 * - failures of one email from one client address block that pair (`LOGIN_MAX_FAILURES`);
 * - failures from one address across emails block that address (`LOGIN_MAX_FAILURES_PER_CLIENT`);
 * - failures on one email across addresses block it at a much higher limit
 *   (`LOGIN_MAX_FAILURES_PER_EMAIL`), but never from an address that logged in to it successfully
 *   within 30 days: a stranger's guesses cannot lock the owner out.
 * An attempt is recorded before the password is checked, so concurrent guesses are counted too; a
 * successful login forgets only that pair's attempts. Signups are limited per address. Records past
 * their window are ignored by the counts and swept (FerretDB has no TTL indexes).
 *
 * An IPv6 caller counts as its /64: one subscriber usually holds a whole /64, and would otherwise get
 * a fresh count from each of its 2^64 addresses.
 */
@Injectable()
export class AttemptLimiter implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(AttemptLimiter.name);
  private sweepTimer?: NodeJS.Timeout;

  constructor(
    private readonly attempts: LoginAttemptsRepository,
    @Inject(authConfig.KEY) private readonly config: ConfigType<typeof authConfig>,
  ) {}

  onModuleInit(): void {
    this.sweepTimer = setInterval(() => {
      this.sweep().catch((error: Error) => this.logger.warn(`Sweeping old login attempts failed: ${error.message}`));
    }, SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  onModuleDestroy(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
  }

  /** Records a login attempt; 429 when the pair, the address or (from an unknown address) the email is past its limit. */
  async beginLogin(email: string, address: string, now = new Date()): Promise<void> {
    const target = normalised(email);
    const client = clientOf(address);
    await this.attempts.recordLogin(target, client, now);
    const since = new Date(now.getTime() - this.config.loginFailureWindowSeconds * 1000);
    const counts = await this.attempts.countLogins(target, client, since);
    const blocked =
      counts.pair > this.config.loginMaxFailures ||
      counts.client > this.config.loginMaxFailuresPerClient ||
      (counts.email > this.config.loginMaxFailuresPerEmail && !(await this.attempts.isKnownAddress(target, client, knownSince(now))));
    if (blocked) throw tooMany('Too many failed login attempts', this.config.loginFailureWindowSeconds);
  }

  /** A correct password: the pair's attempts no longer count, and the address is known for this email. */
  async loginSucceeded(email: string, address: string, now = new Date()): Promise<void> {
    const target = normalised(email);
    const client = clientOf(address);
    await Promise.all([this.attempts.forgetLogins(target, client), this.attempts.rememberAddress(target, client, now)]);
  }

  /** Records a signup; 429 when the client is past its limit within the window. */
  async beginSignup(address: string, now = new Date()): Promise<void> {
    const client = clientOf(address);
    await this.attempts.recordSignup(client, now);
    const count = await this.attempts.countSignups(client, new Date(now.getTime() - this.config.signupWindowSeconds * 1000));
    if (count > this.config.signupMaxPerClient) throw tooMany('Too many signups from this client', this.config.signupWindowSeconds);
  }

  /** Drops attempts older than every window and addresses not seen for 30 days. */
  sweep(now = new Date()): Promise<number> {
    const longest = Math.max(this.config.loginFailureWindowSeconds, this.config.signupWindowSeconds);
    return this.attempts.sweep(new Date(now.getTime() - longest * 1000), knownSince(now));
  }
}

/** What the counts call a client: an IPv4 address as it is (also in its IPv4-mapped IPv6 form), an IPv6 address's /64. */
export function clientOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const hextets = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${hextets.join(':')}::/64`;
}

function normalised(email: string): string {
  return email.trim().toLowerCase();
}

function knownSince(now: Date): Date {
  return new Date(now.getTime() - KNOWN_ADDRESS_DAYS * DAY_MS);
}
