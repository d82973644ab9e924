import { setTimeout as sleep } from 'node:timers/promises';
import { Records } from '../../src/database/records';
import { EventsRepository } from '../../src/events/events.repository';

/**
 * Faults injected into the service's writes from inside its process (jest spies on `Records` and the
 * events repository; `jest.restoreAllMocks()` ends them). Each names the collection whose records it
 * fails, so the bookkeeping around a change (leases, idempotency keys, events) runs as usual.
 */

/** A write of these kinds on a tenant's records. */
export type RecordWrite = 'insert' | 'updateAndGet' | 'deleteMany';

/** What the driver throws when the connection breaks: the outcome of the write is unknown. */
export function networkError(message: string): Error {
  return Object.assign(new Error(message), { name: 'MongoNetworkError' });
}

/**
 * The next `method` on `collection`'s records fails once: `stop` before the write (the database
 * never got it, as when the process stopped there), `lost` after the database applied it (its answer
 * never came back).
 */
export function failOnce(method: RecordWrite, collection: string, mode: 'stop' | 'lost'): void {
  const original = Records.prototype[method] as (...args: unknown[]) => Promise<unknown>;
  let failed = false;
  jest.spyOn(Records.prototype, method).mockImplementation(async function (this: Records<unknown>, ...args: unknown[]) {
    if (failed || this.collectionName !== collection) return original.apply(this, args);
    failed = true;
    if (mode === 'lost') await original.apply(this, args);
    throw networkError(mode === 'lost' ? 'connection reset after the write' : 'connection reset before the write');
  } as never);
}

/**
 * The next `method` on `collection`'s records reaches the database late (after the one that follows
 * it has returned, at least 300 ms, at most 5 s), applies (or matches nothing, as the database finds
 * the record then), and its answer is lost. Resolves when it was called, so that the test sends the
 * overtaking request then.
 */
export function delayedAndLostOnce(method: RecordWrite, collection: string): Promise<void> {
  const original = Records.prototype[method] as (...args: unknown[]) => Promise<unknown>;
  let calls = 0;
  let called!: () => void;
  let overtaken!: () => void;
  const started = new Promise<void>((resolve) => (called = resolve));
  const next = new Promise<void>((resolve) => (overtaken = resolve));
  jest.spyOn(Records.prototype, method).mockImplementation(async function (this: Records<unknown>, ...args: unknown[]) {
    if (this.collectionName !== collection || ++calls > 2) return original.apply(this, args);
    if (calls === 2) return original.apply(this, args).finally(overtaken);
    called();
    await Promise.all([sleep(300), Promise.race([next, sleep(5000)])]);
    await original.apply(this, args);
    throw networkError('connection reset after the write');
  } as never);
  return started;
}

/** The process stops after a change's write, before its events reach the events collection. */
export function stopBeforeRecording(): void {
  jest.spyOn(EventsRepository.prototype, 'recordMany').mockRejectedValueOnce(new Error('process stopped here'));
}

/** The process stops after a hard delete, before its pending events are settled. */
export function stopBeforeSettling(): void {
  jest.spyOn(EventsRepository.prototype, 'settleDeletions').mockRejectedValueOnce(new Error('process stopped here'));
}

/** Every discard of a hard delete's pending event fails, until the mocks are restored. */
export function failEveryDiscard(): void {
  jest.spyOn(EventsRepository.prototype, 'discard').mockRejectedValue(networkError('connection reset'));
}
