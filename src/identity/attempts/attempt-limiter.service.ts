import { clientOf } from '../../common/http/client-address';
import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type { Types } from 'mongoose';
import { TooManyRequestsException } from '../../common/http/too-many-requests.exception';
import { authConfig } from '../../config/auth.config';
import { mailConfig } from '../../config/mail.config';
import { JobRunner, type JobHandle } from '../../jobs/job-runner';
import { LoginAttemptsRepository } from './login-attempts.repository';

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;
/** How long one instance holds the sweep at a time, renewed while it runs. */
const SWEEP_LEASE_MS = 60_000;
/** How long a successful login keeps its address exempt from the per-email limit. */
export const KNOWN_ADDRESS_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Refused signups (a taken email, a bad invitation) an address may make within the window, as a
 * multiple of `SIGNUP_MAX_PER_CLIENT`, before its signups are refused. A person who mistypes or
 * retries gets a few; a run of them is someone trying emails (a 409 says that one is taken).
 */
export const REFUSED_SIGNUPS_FACTOR = 3;

/**
 * Limits logins the way Auth0's brute-force protection counts them, in the database so every
 * instance counts together:
 * - failures of one email from one client address block that pair (`LOGIN_MAX_FAILURES`);
 * - failures from one address across emails block that address (`LOGIN_MAX_FAILURES_PER_CLIENT`);
 * - failures on one email across addresses block it at a much higher limit
 *   (`LOGIN_MAX_FAILURES_PER_EMAIL`), but never from an address that logged in to it successfully
 *   within 30 days: a stranger's guesses cannot lock the owner out.
 * An attempt is recorded before the password is checked, so concurrent guesses are counted too; a
 * successful login forgets only that pair's attempts. A passkey's answer is a login attempt of the
 * address alone, recorded before it is verified (`beginPasskeyAnswer`): never of an email. Requests for passkey options (each writes a challenge) are limited per
 * address (`PASSKEY_OPTIONS_MAX_PER_CLIENT`), answered or not. Signups are limited per address:
 * admitted ones (and those under way, so concurrent signups cannot all slip under the limit) up to
 * `SIGNUP_MAX_PER_CLIENT`; refused ones (4xx) only past `REFUSED_SIGNUPS_FACTOR` times that. A
 * throttled signup or request for options counts for nothing. Records past their window are ignored
 * by the counts and swept (FerretDB has no TTL indexes). Every 429 says in `Retry-After` when to try
 * again.
 *
 * An IPv6 caller counts as its /64: one subscriber usually holds a whole /64, and would otherwise get
 * a fresh count from each of its 2^64 addresses.
 */
@Injectable()
export class AttemptLimiter implements OnModuleInit, OnModuleDestroy {
  private sweepJob?: JobHandle;

  constructor(
    private readonly attempts: LoginAttemptsRepository,
    @Inject(authConfig.KEY) private readonly config: ConfigType<typeof authConfig>,
    @Inject(mailConfig.KEY) private readonly mail: ConfigType<typeof mailConfig>,
    private readonly jobs: JobRunner,
  ) {}

  /** Removing old attempts is one instance's work: the others would delete the same documents. */
  onModuleInit(): void {
    this.sweepJob = this.jobs.register({
      name: 'auth.attempts-sweep',
      everyMs: SWEEP_INTERVAL_MS,
      lease: { holdMs: SWEEP_LEASE_MS },
      run: () => this.sweep(),
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.sweepJob?.stop();
  }

  /**
   * Records a login attempt; 429 when the pair, the address or (from an unknown address) the email is
   * past its limit. Without an email (a passkey that names no user) it counts toward the address alone.
   */
  async beginLogin(email: string | null, address: string, now = new Date()): Promise<void> {
    const target = email === null ? null : normalised(email);
    const client = clientOf(address);
    await this.attempts.recordLogin(target, client, now);
    const since = new Date(now.getTime() - this.config.loginFailureWindowSeconds * 1000);
    const counts = await this.attempts.countLogins(target, client, since);
    const blocked =
      counts.client > this.config.loginMaxFailuresPerClient ||
      (target !== null &&
        (counts.pair > this.config.loginMaxFailures ||
          (counts.email > this.config.loginMaxFailuresPerEmail &&
            !(await this.attempts.isKnownAddress(target, client, knownSince(now))))));
    // The window is when the oldest failure counted stops counting at the latest.
    if (blocked)
      throw new TooManyRequestsException('Too many failed login attempts', this.config.loginFailureWindowSeconds);
  }

  /**
   * A correct password: the pair's attempts no longer count, and the address is known for this email.
   * True when the address was not known for it before (the insert against the unique id decides, so
   * of two first sign-ins at once only one is told it is new).
   */
  async loginSucceeded(email: string, address: string, now = new Date()): Promise<boolean> {
    const target = normalised(email);
    const client = clientOf(address);
    const [, isNew] = await Promise.all([
      this.attempts.forgetLogins(target, client),
      this.attempts.rememberAddress(target, client, now),
    ]);
    return isNew;
  }

  /**
   * Records a passkey's answer, before it is verified: toward the address's limit alone, never the
   * email of the user its passkey names. A passkey cannot be guessed, so its answers tell nothing of
   * the email; counting them there would let a stranger's refused answers from new addresses, or the
   * email's failed passwords, lock the user's own passkey out wherever they go.
   */
  beginPasskeyAnswer(address: string, now = new Date()): Promise<void> {
    return this.beginLogin(null, address, now);
  }

  /** A passkey's answer verified: the address's passkey answers no longer count. */
  passkeyAnswerSucceeded(address: string): Promise<void> {
    return this.attempts.forgetAddressLogins(clientOf(address));
  }

  /**
   * Records a second-factor code offered for the user of `email` (TOTP or recovery code), before it
   * is checked; 429 past `MFA_MAX_FAILURES` within the login window, whatever the address. Apart from
   * the password's attempts: a correct password clears none of these, only a correct code does
   * (`codeSucceeded`), so a caller who knows the password cannot guess codes by logging in between.
   */
  async beginCode(email: string, address: string, now = new Date()): Promise<void> {
    const target = normalised(email);
    await this.attempts.recordCode(target, clientOf(address), now);
    const since = new Date(now.getTime() - this.config.loginFailureWindowSeconds * 1000);
    if ((await this.attempts.countCodes(target, since)) > this.config.mfaMaxFailures) {
      throw new TooManyRequestsException('Too many second-factor codes tried', this.config.loginFailureWindowSeconds);
    }
  }

  /** A correct code: the user's code attempts no longer count. */
  codeSucceeded(email: string): Promise<void> {
    return this.attempts.forgetCodes(normalised(email));
  }

  /**
   * Records a signup under way and answers its attempt, for `signupRefused`; 429 when the client is
   * past either limit within the window, with the seconds until the oldest attempt it needs to leave
   * the window does.
   */
  async beginSignup(address: string, now = new Date()): Promise<Types.ObjectId> {
    const client = clientOf(address);
    const attempt = await this.attempts.recordSignup(client, now);
    const windowMs = this.config.signupWindowSeconds * 1000;
    const since = new Date(now.getTime() - windowMs);
    const counts = await this.attempts.countSignups(client, since);
    const admittedLimit = this.config.signupMaxPerClient;
    const refusedLimit = admittedLimit * REFUSED_SIGNUPS_FACTOR;
    // The counts hold this attempt as admitted: the limits are on the others.
    const over =
      counts.admitted - 1 >= admittedLimit
        ? {
            kind: 'signup' as const,
            counted: counts.admitted - 1,
            limit: admittedLimit,
            message: 'Too many signups from this client',
          }
        : counts.refused >= refusedLimit
          ? {
              kind: 'signup_refused' as const,
              counted: counts.refused,
              limit: refusedLimit,
              message: 'Too many refused signups from this client',
            }
          : null;
    if (!over) return attempt;
    await this.attempts.forget(attempt);
    // Admitted again once `counted - limit + 1` of the oldest have left the window: the last of them is at `counted - limit`.
    const oldest = await this.attempts.attemptAt(over.kind, client, since, over.counted - over.limit);
    throw new TooManyRequestsException(over.message, oldest ? (oldest.getTime() + windowMs - now.getTime()) / 1000 : 1);
  }

  /**
   * Records a request for passkey options (a challenge written) by `address`; 429 past
   * `PASSKEY_OPTIONS_MAX_PER_CLIENT` within the login window, with the seconds until the oldest
   * request it needs to leave the window does. A refused request writes nothing and counts for nothing.
   */
  async beginPasskeyOptions(address: string, now = new Date()): Promise<void> {
    const client = clientOf(address);
    const attempt = await this.attempts.recordPasskeyOptions(client, now);
    const windowMs = this.config.loginFailureWindowSeconds * 1000;
    const since = new Date(now.getTime() - windowMs);
    const limit = this.config.passkeyOptionsMaxPerClient;
    // The count holds this request: the limit is on the others.
    const counted = (await this.attempts.countFrom('passkey_options', client, since)) - 1;
    if (counted < limit) return;
    await this.attempts.forget(attempt);
    const oldest = await this.attempts.attemptAt('passkey_options', client, since, counted - limit);
    throw new TooManyRequestsException(
      'Too many passkey ceremonies started from this client',
      oldest ? (oldest.getTime() + windowMs - now.getTime()) / 1000 : 1,
    );
  }

  /** The signup was answered with a 4xx: it stops counting toward the signups' limit, and counts toward the refusals'. */
  signupRefused(attempt: Types.ObjectId): Promise<void> {
    return this.attempts.markSignupRefused(attempt);
  }

  /**
   * Records a request for a mail (a password reset, a verification resend) to `email` by `address`;
   * false when either is past its limit within the window (`MAIL_MAX_PER_EMAIL`, `MAIL_MAX_PER_CLIENT`),
   * then no mail must be sent. Requests are counted whether or not the email is known, so the limit
   * itself says nothing about which emails exist; one mailbox gets at most `MAIL_MAX_PER_EMAIL` a window
   * however many addresses ask.
   */
  async admitMail(email: string, address: string, now = new Date()): Promise<boolean> {
    const target = normalised(email);
    const client = clientOf(address);
    await this.attempts.recordMail(target, client, now);
    const counts = await this.attempts.countMails(
      target,
      client,
      new Date(now.getTime() - this.mail.windowSeconds * 1000),
    );
    return counts.email <= this.mail.maxPerEmail && counts.client <= this.mail.maxPerClient;
  }

  /**
   * Records a mail an account sends to `email` (an invitation) and answers whether that mailbox is
   * within MAIL_MAX_PER_EMAIL: no one floods a mailbox through invitations either. Counted with the
   * reset and verification mails to that email; the sender is no client address of the limits.
   */
  async admitMailTo(email: string, now = new Date()): Promise<boolean> {
    const target = normalised(email);
    await this.attempts.recordMail(target, ACCOUNT_MAIL, now);
    const counts = await this.attempts.countMails(
      target,
      ACCOUNT_MAIL,
      new Date(now.getTime() - this.mail.windowSeconds * 1000),
    );
    return counts.email <= this.mail.maxPerEmail;
  }

  /** The seconds a refused mail request should wait: the window's length, the longest it can take. */
  get mailWindowSeconds(): number {
    return this.mail.windowSeconds;
  }

  /** Drops attempts older than every window and addresses not seen for 30 days. */
  sweep(now = new Date()): Promise<number> {
    const longest = Math.max(
      this.config.loginFailureWindowSeconds,
      this.config.signupWindowSeconds,
      this.mail.windowSeconds,
    );
    return this.attempts.sweep(new Date(now.getTime() - longest * 1000), knownSince(now));
  }
}

/** What an account's mail (an invitation) is recorded as sent from: no client address. */
const ACCOUNT_MAIL = 'account-mail';

function normalised(email: string): string {
  return email.trim().toLowerCase();
}

function knownSince(now: Date): Date {
  return new Date(now.getTime() - KNOWN_ADDRESS_DAYS * DAY_MS);
}

export { clientOf };
