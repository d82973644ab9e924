import { Logger } from '@nestjs/common';
import type { HeldLease, Leases } from '../leases/leases.service';
import { LeaseLocker, uploadLockKey, whileUploadLocked } from './upload-locker';

/** A release that lands when the test says so. */
function pendingRelease() {
  let land!: () => void;
  let fail!: (error: Error) => void;
  const landed = new Promise<void>((resolve, reject) => {
    land = resolve;
    fail = reject;
  });
  return { land, fail, release: jest.fn(() => landed) };
}

function lockerHolding(release: HeldLease['release']) {
  const hold = jest.fn<Promise<HeldLease | undefined>, Parameters<Leases['hold']>>(async () => ({ release }));
  return { hold, locker: new LeaseLocker({ hold } as unknown as Leases, { holdMs: 1_000, waitMs: 10 }) };
}

const signal = new AbortController().signal;

describe('LeaseLocker', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => (warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined)));
  afterEach(() => warn.mockRestore());

  it("holds the upload's lease, and answers 423 when another holder keeps it", async () => {
    const { hold, locker } = lockerHolding(jest.fn());
    await locker.newLock('a1').lock(signal, () => undefined);
    expect(hold).toHaveBeenCalledWith(uploadLockKey('a1'), expect.objectContaining({ holdMs: 1_000, signal }));

    hold.mockResolvedValueOnce(undefined);
    await expect(locker.newLock('a1').lock(signal, () => undefined)).rejects.toMatchObject({ status_code: 423 });
  });

  it("lets the request answer before the lease's delete lands, and a stop waits for it", async () => {
    const pending = pendingRelease();
    const { locker } = lockerHolding(pending.release);
    const lock = locker.newLock('a1');
    await lock.lock(signal, () => undefined);

    await lock.unlock();
    expect(pending.release).toHaveBeenCalledTimes(1);

    let settled = false;
    const stop = locker.settled().then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    pending.land();
    await stop;
    expect(settled).toBe(true);
  });

  it('logs a release that failed, which the lease lapsing covers, and rejects nothing', async () => {
    const pending = pendingRelease();
    const { locker } = lockerHolding(pending.release);
    const lock = locker.newLock('a1');
    await lock.lock(signal, () => undefined);
    await lock.unlock();
    pending.fail(new Error('connection reset'));
    await locker.settled();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('connection reset'));
  });

  it('releases a lock once, however often it is unlocked', async () => {
    const release = jest.fn(async () => undefined);
    const { locker } = lockerHolding(release);
    const lock = locker.newLock('a1');
    await lock.lock(signal, () => undefined);
    await lock.unlock();
    await lock.unlock();
    await locker.settled();
    expect(release).toHaveBeenCalledTimes(1);
  });

  it('waits on a stop for the releases under way then, not for those of requests that come after', async () => {
    const first = pendingRelease();
    const later = pendingRelease();
    const release = jest.fn().mockImplementationOnce(first.release).mockImplementationOnce(later.release);
    const { locker } = lockerHolding(release);
    const lock = locker.newLock('a1');
    await lock.lock(signal, () => undefined);
    await lock.unlock();
    const stop = locker.settled();
    const next = locker.newLock('a1');
    await next.lock(signal, () => undefined);
    await next.unlock();
    first.land();
    // Settles although the later release never lands.
    await stop;
    later.land();
  });
});

describe('whileUploadLocked', () => {
  it('runs the work holding the upload lock, and gives it back after, also when the work fails', async () => {
    const release = jest.fn(async () => undefined);
    const hold = jest.fn(async () => ({ release }));
    const leases = { hold } as unknown as Leases;
    await expect(whileUploadLocked(leases, 'a1', async () => 'done')).resolves.toBe('done');
    expect(hold).toHaveBeenCalledWith(uploadLockKey('a1'), expect.objectContaining({ waitMs: 3_000 }));
    await expect(
      whileUploadLocked(leases, 'a1', async () => {
        throw new Error('store failed');
      }),
    ).rejects.toThrow('store failed');
    expect(release).toHaveBeenCalledTimes(2);
  });

  it('answers 423 and runs nothing while another request keeps the lock', async () => {
    const work = jest.fn();
    const leases = { hold: async () => undefined } as unknown as Leases;
    await expect(whileUploadLocked(leases, 'a1', work)).rejects.toMatchObject({ status: 423 });
    expect(work).not.toHaveBeenCalled();
  });
});
