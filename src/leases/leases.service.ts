import { ConflictException, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { LeasesRepository } from './leases.repository';

/** Longest a holder may keep a lease; far above any confirmation, refund or default-card change. */
const LEASE_MS = 15_000;
/** Longest a request waits for another one on the same key before answering 409. */
const WAIT_MS = 5_000;

/** A lease taken with `Leases.hold`, renewed until released. */
export interface HeldLease {
  release(): Promise<void>;
}

/**
 * Serialises changes of one thing across every instance, for work that reads several records before
 * it writes (a single record's change needs none: its guarded update is atomic). A lease is taken by
 * inserting a document with the key as its `_id`, atomic under the unique index; its holder's updates
 * still carry their guards in the filter. Background work holds its lease for as long as it runs,
 * renewed every third of its length, so a slow holder is never taken over while it lives.
 */
@Injectable()
export class Leases {
  constructor(private readonly leases: LeasesRepository) {}

  async withLease<T>(key: string, busyMessage: string, work: () => Promise<T>): Promise<T> {
    const holder = await this.acquire(key, busyMessage);
    try {
      return await work();
    } finally {
      await this.leases.release(key, holder);
    }
  }

  /**
   * Runs `work` under the lease when nobody holds it (an abandoned one is taken over), held `holdMs`
   * at a time and renewed every third of it while `work` runs: a holder that dies lets it go within
   * `holdMs`, one that lives keeps it however long the work takes. Undefined, without waiting, when
   * another holder has it. For background work that any instance may do and only one should (a
   * sweep of left refunds, an asset's processing).
   */
  async tryWithLease<T>(key: string, holdMs: number, work: () => Promise<T>): Promise<T | undefined> {
    const holder = randomUUID();
    if (!(await this.tryAcquire(key, holder, holdMs))) return undefined;
    const renewal = this.renewWhileHeld(key, holder, holdMs);
    try {
      return await work();
    } finally {
      clearInterval(renewal);
      await this.leases.release(key, holder);
    }
  }

  /**
   * Takes the lease for as long as the caller needs it, for work whose length nobody knows (a
   * request's body arriving): held `holdMs` at a time and renewed every third of it while the holder
   * lives, so a holder that dies lets it go within `holdMs`. Waits at most `waitMs` (or until
   * `signal` aborts) for another holder: undefined then. `release()` gives it back.
   */
  async hold(key: string, options: { holdMs: number; waitMs: number; signal?: AbortSignal }): Promise<HeldLease | undefined> {
    const holder = randomUUID();
    const deadline = Date.now() + options.waitMs;
    for (let round = 0; !(await this.tryAcquire(key, holder, options.holdMs)); round++) {
      if (Date.now() >= deadline || options.signal?.aborted) return undefined;
      await sleep(Math.min(10 + round * 10, 100) + Math.random() * 10);
    }
    const renewal = this.renewWhileHeld(key, holder, options.holdMs);
    return {
      release: async () => {
        clearInterval(renewal);
        await this.leases.release(key, holder);
      },
    };
  }

  /** Pushes the lease's expiry on every third of `holdMs`; a renewal that fails is tried again at the next. */
  private renewWhileHeld(key: string, holder: string, holdMs: number): NodeJS.Timeout {
    const renewal = setInterval(() => {
      this.leases.extend(key, holder, new Date(Date.now() + holdMs)).catch(() => undefined);
    }, Math.max(Math.floor(holdMs / 3), 1));
    renewal.unref();
    return renewal;
  }

  private async tryAcquire(key: string, holder: string, holdMs: number): Promise<boolean> {
    for (let round = 0; round < 3; round++) {
      try {
        await this.leases.insert({ _id: key, holder, expiresAt: new Date(Date.now() + holdMs) });
        return true;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      const current = await this.leases.find(key);
      if (current && new Date(current.expiresAt).getTime() >= Date.now()) return false;
      if (current) await this.leases.release(key, current.holder);
    }
    return false;
  }

  private async acquire(key: string, busyMessage: string): Promise<string> {
    const holder = randomUUID();
    const deadline = Date.now() + WAIT_MS;
    for (let round = 0; ; round++) {
      try {
        await this.leases.insert({ _id: key, holder, expiresAt: new Date(Date.now() + LEASE_MS) });
        return holder;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      const current = await this.leases.find(key);
      if (current && new Date(current.expiresAt).getTime() < Date.now()) {
        // Abandoned by a holder that never finished: take it over.
        await this.leases.release(key, current.holder);
        continue;
      }
      if (Date.now() >= deadline) throw new ConflictException(busyMessage);
      await sleep(Math.min(5 + round * 5, 50) + Math.random() * 10);
    }
  }
}
