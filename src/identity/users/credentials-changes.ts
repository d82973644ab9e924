import { Injectable } from '@nestjs/common';
import { UsersRepository } from './users.repository';
import { growingLru } from '../../common/cache/growing-lru';

/** How long an instance trusts what it last read of a user's `credentialsChangedAt`. */
export const CREDENTIALS_KEPT_MS = 5_000;

interface KnownUser {
  /** When the credentials last changed, ms since the epoch; 0 never; Infinity when the user is gone. */
  at: number;
  /** When a second factor was last added or removed, ms since the epoch; 0 never. */
  factorsAt: number;
  emailVerified: boolean;
}

/** What a bearer token is checked against, read from the database for that request. */
export interface CredentialsState {
  /** Ms since the epoch; 0 when they never changed; Infinity when the user is gone. */
  changedAt: number;
  factorsChangedAt: number;
}

/**
 * What every authenticated request asks of its user: when their credentials last changed (every
 * bearer token and session check) and whether their email is verified (the routes that invite or
 * move money). Read from the user at most once per `CREDENTIALS_KEPT_MS` per user and instance, so
 * a request costs no read for either in the steady state; a change made on this instance is known
 * here at once, one made on another instance within that time. A verified email stays verified
 * (`emailVerifiedAt` is only ever set), so only "not verified" is read again every time.
 */
@Injectable()
export class CredentialsChanges {
  private readonly known = growingLru<string, KnownUser>(10_000, { ttl: CREDENTIALS_KEPT_MS, ttlResolution: 0 });

  constructor(private readonly users: UsersRepository) {}

  /**
   * Read from the database now, never from what this instance remembers: a bearer token cannot be
   * deleted as a session is, so a reset, a password change or a factor removal made on any instance
   * must be seen by the very next request with a token issued before it.
   */
  async current(userId: string): Promise<CredentialsState> {
    const known = await this.read(userId);
    return { changedAt: known.at, factorsChangedAt: known.factorsAt };
  }

  /**
   * Milliseconds since the epoch; 0 when they never changed; Infinity when the user is gone. May be
   * what this instance read within `CREDENTIALS_KEPT_MS`: for sessions, which a change also deletes
   * (or lowers) in the database, so this is only their second line.
   */
  async changedAt(userId: string): Promise<number> {
    return (this.known.get(userId) ?? (await this.read(userId))).at;
  }

  /** Whether the user's email is verified; a user from before verification existed (no field at all) counts as verified. */
  async emailVerified(userId: string): Promise<boolean> {
    if (this.known.get(userId)?.emailVerified) return true;
    return (await this.read(userId)).emailVerified;
  }

  noteChanged(userId: string, at: Date): void {
    const known = this.known.get(userId);
    this.known.set(userId, {
      at: at.getTime(),
      factorsAt: known?.factorsAt ?? 0,
      emailVerified: known?.emailVerified ?? false,
    });
  }

  private async read(userId: string): Promise<KnownUser> {
    const user = await this.users.findCredentialsState(userId);
    const known = {
      at: !user
        ? Number.POSITIVE_INFINITY
        : user.credentialsChangedAt
          ? new Date(user.credentialsChangedAt).getTime()
          : 0,
      factorsAt: user?.factorsChangedAt ? new Date(user.factorsChangedAt).getTime() : 0,
      emailVerified: !user || user.emailVerifiedAt !== null,
    };
    this.known.set(userId, known);
    return known;
  }
}

/** The user's `credentialsChangedAt` as a version (ms; 0 never): tokens and sessions are bound to the one their proof was checked against. */
export function credentialsVersionOf(user: { credentialsChangedAt?: Date | null }): number {
  return user.credentialsChangedAt ? new Date(user.credentialsChangedAt).getTime() : 0;
}
