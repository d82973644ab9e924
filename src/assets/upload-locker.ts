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

/** The lease of an upload's lock: whoever removes the upload's bytes takes it too. */
export function uploadLockKey(assetId: string): string {
  return `tus-upload:${assetId}`;
}

/**
 * The tus server's locks as leases (`tus-upload:<id>`), so two requests on one upload never write at
 * once whichever instances they reach. A lock is held from the start of a request's work on the
 * upload to its end (`@tus/server` releases it in a `finally`) and expires within `HOLD_MS` of its
 * instance dying. A request that cannot get it within `WAIT_MS` is answered 423, which tus clients
 * retry after asking the offset: unlike the in-memory locker, a request on one instance cannot make
 * one on another stop early, so the stale request of a cut connection lets go when its instance
 * notices the cut.
 */
export class LeaseLocker implements Locker {
  constructor(
    private readonly leases: Leases,
    private readonly options: { holdMs: number; waitMs: number } = { holdMs: HOLD_MS, waitMs: WAIT_MS },
  ) {}

  newLock(id: string): Lock {
    return new LeaseLock(uploadLockKey(id), this.leases, this.options);
  }
}

class LeaseLock implements Lock {
  private held?: HeldLease;

  constructor(
    private readonly key: string,
    private readonly leases: Leases,
    private readonly options: { holdMs: number; waitMs: number },
  ) {}

  async lock(signal: AbortSignal, _requestRelease: RequestRelease): Promise<void> {
    this.held = await this.leases.hold(this.key, { ...this.options, signal });
    if (!this.held) throw LOCKED;
  }

  async unlock(): Promise<void> {
    const held = this.held;
    this.held = undefined;
    await held?.release();
  }
}
