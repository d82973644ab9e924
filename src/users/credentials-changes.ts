import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { UsersRepository } from './users.repository';

/** How long an instance trusts what it last read of a user's `credentialsChangedAt`. */
export const CREDENTIALS_KEPT_MS = 5_000;

/**
 * When each user's credentials last changed, as every bearer token and session check asks it. Read
 * from the user at most once per `CREDENTIALS_KEPT_MS` per user and instance, so a request costs no
 * read for it in the steady state; a change made on this instance is known here at once, one made
 * on another instance within that time.
 */
@Injectable()
export class CredentialsChanges {
  private readonly known = new LRUCache<string, { at: number }>({ max: 10_000, ttl: CREDENTIALS_KEPT_MS, ttlResolution: 0 });

  constructor(private readonly users: UsersRepository) {}

  /** Milliseconds since the epoch; 0 when they never changed; Infinity when the user is gone. */
  async changedAt(userId: string): Promise<number> {
    const cached = this.known.get(userId);
    if (cached) return cached.at;
    const user = await this.users.findById(userId);
    const at = !user ? Number.POSITIVE_INFINITY : user.credentialsChangedAt ? new Date(user.credentialsChangedAt).getTime() : 0;
    this.known.set(userId, { at });
    return at;
  }

  noteChanged(userId: string, at: Date): void {
    this.known.set(userId, { at: at.getTime() });
  }
}
