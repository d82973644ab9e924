import { HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Lock, Locker, RequestRelease } from '@tus/utils';
import type { HeldLease, Leases } from '../leases/leases.service';

/** How long a lock outlives an instance that died holding it; renewed while the request lives. */
const HOLD_MS = 15_000;
/** How long a request waits for the lock another request holds before answering 423. */
const WAIT_MS = 3_000;

const LOCKED = {
  status_code: 423,
  body: 'Locked: another request is writing this upload. Ask HEAD for the offset and resume from it.\n',
};

const logger = new Logger('UploadLocks');

/** The lease of an upload's lock: whoever removes the upload's bytes takes it too. */
export function uploadLockKey(assetId: string): string {
  return `tus-upload:${assetId}`;
}

/**
 * Runs `work` holding the upload's lock, as a tus request does (termination removes the bytes a
 * `PATCH` may be writing): 423, as the tus server answers, when another request keeps the lock
 * past `WAIT_MS`.
 */
export async function whileUploadLocked<T>(leases: Leases, assetId: string, work: () => Promise<T>): Promise<T> {
  const held = await leases.hold(uploadLockKey(assetId), { holdMs: HOLD_MS, waitMs: WAIT_MS });
  if (!held) throw new HttpException(LOCKED.body.trim(), HttpStatus.LOCKED);
  try {
    return await work();
  } finally {
    await held.release();
  }
}

/**
 * The tus server's locks as leases (`tus-upload:<id>`), so two requests on one upload never write at
 * once whichever instances they reach. A lock is held from the start of a request's work on the
 * upload to its end (`@tus/server` releases it in a `finally`) and expires within `HOLD_MS` of its
 * instance dying. A request that cannot get it within `WAIT_MS` is answered 423, which tus clients
 * retry after asking the offset: unlike the in-memory locker, a request on one instance cannot make
 * one on another stop early, so the stale request of a cut connection lets go when its instance
 * notices the cut.
 *
 * A lock is let go once the request's bytes are written, and the answer does not wait for the
 * lease's delete to land: the bytes and their offset are already final, so no writer can be let in
 * too early, and a request that asks for the lock before the delete lands waits for it as for any
 * holder. A delete that fails leaves the lease to lapse within `HOLD_MS`. `settled()` is what a stop
 * waits for, so an instance stopping in order leaves no lock behind.
 */
export class LeaseLocker implements Locker {
  private readonly releasing = new Set<Promise<void>>();

  constructor(
    private readonly leases: Leases,
    private readonly options: { holdMs: number; waitMs: number } = { holdMs: HOLD_MS, waitMs: WAIT_MS },
  ) {}

  newLock(id: string): Lock {
    return new LeaseLock(uploadLockKey(id), this.leases, this.options, (release) => this.track(release));
  }

  /** Once every release under way now has landed (or failed); not those of requests still to come. */
  async settled(): Promise<void> {
    await Promise.all([...this.releasing]);
  }

  private track(release: Promise<void>): void {
    const tracked = release
      .catch((error: unknown) =>
        logger.warn(`An upload's lock was not given back (it lapses by itself): ${(error as Error).message}`),
      )
      .finally(() => this.releasing.delete(tracked));
    this.releasing.add(tracked);
  }
}

class LeaseLock implements Lock {
  private held?: HeldLease;

  constructor(
    private readonly key: string,
    private readonly leases: Leases,
    private readonly options: { holdMs: number; waitMs: number },
    private readonly releaseLater: (release: Promise<void>) => void,
  ) {}

  async lock(signal: AbortSignal, _requestRelease: RequestRelease): Promise<void> {
    this.held = await this.leases.hold(this.key, { ...this.options, signal });
    if (!this.held) throw LOCKED;
  }

  unlock(): Promise<void> {
    const held = this.held;
    this.held = undefined;
    if (held) this.releaseLater(held.release());
    return Promise.resolve();
  }
}
