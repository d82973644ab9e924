import { ConflictException, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { LeasesRepository } from './leases.repository';

/** Longest a holder may keep a lease; far above any confirmation, refund or default-card change. */
const LEASE_MS = 15_000;
/** Longest a request waits for another one on the same key before answering 409. */
const WAIT_MS = 5_000;

/** A fenced lease while its work runs: its token, and whether a renewal found it taken over. */
export interface FencedHold {
  /** Grows with every take-over of the key: a write made under the lease carries it and is guarded on it. */
  readonly fence: number;
  /** True once a renewal found another holder (this one's expiry passed unrenewed): its writes are refused by their guard. */
  readonly lost: boolean;
}

/** A lease taken with `Leases.hold`, renewed until released. */
export interface HeldLease {
  release(): Promise<void>;
}

/**
 * Serialises changes of one thing across every instance, for work that reads several records before
 * it writes (a single record's change needs none: its guarded update is atomic). A lease is taken by
 * inserting a document with the key as its `_id`, atomic under the unique index; its holder's updates
 * still carry their guards in the filter. Every holder, a request's change or background work, keeps
 * its lease for as long as it runs, renewed every third of its length, so a slow holder is never
 * taken over while it lives, and one that dies lets it go within that length.
 */
@Injectable()
export class Leases {
  constructor(private readonly leases: LeasesRepository) {}

  async withLease<T>(key: string, busyMessage: string, work: () => Promise<T>, holdMs = LEASE_MS): Promise<T> {
    const holder = await this.acquire(key, busyMessage, holdMs);
    // Renewed while the work runs, as background work's is: a change that reads many records (a
    // member leaving every channel of an account) may outlast one length, and is never taken over
    // while its holder lives.
    const renewal = this.renewWhileHeld(key, holder, holdMs);
    try {
      return await work();
    } finally {
      clearInterval(renewal);
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
   * `tryWithLease` with a fencing token: the lease's document stays when released (it only expires),
   * so its `fence` counts every holder the key ever had, 1 for the first and one more for each
   * take-over. `work` gets it and carries it into its writes, whose guard compares it with the one
   * the record was last written under: a holder that was paused past its expiry (a stalled process,
   * a clock that ran ahead on another instance) and taken over writes nothing after the new holder's
   * first write, however its own clock reads. A take-over first inserts its claim (`<key>#<fence>`,
   * unique), so of two instances that both read the lease expired only one gets the next token, on
   * FerretDB too.
   */
  async tryWithFencedLease<T>(
    key: string,
    holdMs: number,
    work: (hold: FencedHold) => Promise<T>,
  ): Promise<T | undefined> {
    const holder = randomUUID();
    const fence = await this.tryAcquireFenced(key, holder, holdMs);
    if (fence === undefined) return undefined;
    const hold = { fence, lost: false };
    let renewing: Promise<unknown> = Promise.resolve();
    const renewal = setInterval(
      () => {
        renewing = this.leases
          .extendFenced(key, holder, fence, new Date(Date.now() + holdMs))
          .then((held) => (hold.lost ||= !held))
          .catch(() => undefined);
      },
      Math.max(Math.floor(holdMs / 3), 1),
    );
    renewal.unref();
    try {
      return await work(hold);
    } finally {
      clearInterval(renewal);
      // A renewal sent just before the work ended would land after the release and hold the lease
      // again for a whole holdMs (the released document keeps its holder and token).
      await renewing;
      await this.leases.expireFenced(key, holder, fence);
    }
  }

  /** The fenced lease's next token when this holder took it, else undefined (held, or another won the take-over). */
  private async tryAcquireFenced(key: string, holder: string, holdMs: number): Promise<number | undefined> {
    const current = await this.leases.find(key);
    const expiresAt = () => new Date(Date.now() + holdMs);
    if (!current) {
      try {
        await this.leases.insert({ _id: key, holder, expiresAt: expiresAt(), fence: 1 });
        return 1;
      } catch (error) {
        if (isDuplicateKey(error)) return undefined;
        throw error;
      }
    }
    if (new Date(current.expiresAt).getTime() >= Date.now()) return undefined;
    const next = (current.fence ?? 0) + 1;
    if (!(await this.claimTakeOver(`${key}#${next}`, holder, holdMs, next))) return undefined;
    if (!(await this.leases.takeOverFenced(key, current.fence, holder, expiresAt()))) return undefined;
    await this.leases.dropClaim(`${key}#${next - 1}`).catch(() => undefined);
    return next;
  }

  /**
   * Inserts a take-over's claim. A claim there already belongs to another take-over of the same
   * token; one whose own expiry passed was left by a holder that stopped between its claim and its
   * take-over, and is removed (by its holder, so a fresh claim is never removed) and tried again.
   */
  private async claimTakeOver(claimKey: string, holder: string, holdMs: number, fence: number): Promise<boolean> {
    for (let round = 0; round < 2; round++) {
      try {
        await this.leases.insert({ _id: claimKey, holder, expiresAt: new Date(Date.now() + holdMs), fence });
        return true;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      const claim = await this.leases.find(claimKey);
      if (claim && new Date(claim.expiresAt).getTime() >= Date.now()) return false;
      if (claim) await this.leases.release(claimKey, claim.holder);
    }
    return false;
  }

  /**
   * Takes the lease for as long as the caller needs it, for work whose length nobody knows (a
   * request's body arriving): held `holdMs` at a time and renewed every third of it while the holder
   * lives, so a holder that dies lets it go within `holdMs`. Waits at most `waitMs` (or until
   * `signal` aborts) for another holder: undefined then. `release()` gives it back.
   */
  async hold(
    key: string,
    options: { holdMs: number; waitMs: number; signal?: AbortSignal },
  ): Promise<HeldLease | undefined> {
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
    const renewal = setInterval(
      () => {
        this.leases.extend(key, holder, new Date(Date.now() + holdMs)).catch(() => undefined);
      },
      Math.max(Math.floor(holdMs / 3), 1),
    );
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

  private async acquire(key: string, busyMessage: string, holdMs: number): Promise<string> {
    const holder = randomUUID();
    const deadline = Date.now() + WAIT_MS;
    for (let round = 0; ; round++) {
      try {
        await this.leases.insert({ _id: key, holder, expiresAt: new Date(Date.now() + holdMs) });
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
