import type { Logger } from '@nestjs/common';
import type { Collection } from 'mongoose';

/** How often expired records are swept where the database has no TTL index. */
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Drops a collection's documents once their `createdAt` is `seconds` old: MongoDB's TTL index where
 * the database has one; FerretDB has none, so there an hourly sweep does it. The sweep crosses every
 * project, by age alone: like the TTL index it reads nothing and answers nobody, so it goes to the
 * collection directly, past the tenantOwned guard. Readers must still treat an old document as
 * absent, since either way it may outlive its age for a while. Returns a function that stops the sweep.
 */
export async function expireByAge(collection: Collection, seconds: number, logger: Logger): Promise<() => void> {
  try {
    await collection.createIndex({ createdAt: 1 }, { expireAfterSeconds: seconds, name: 'createdAt_ttl' });
    return () => undefined;
  } catch (error) {
    logger.debug(
      `No TTL index on ${collection.collectionName} (${(error as Error).message}); expired documents are swept hourly`,
    );
  }
  const timer = setInterval(() => {
    sweepExpired(collection, seconds).catch((failure: Error) =>
      logger.warn(`Sweeping expired documents of ${collection.collectionName} failed: ${failure.message}`),
    );
  }, SWEEP_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Deletes the documents whose `createdAt` is `seconds` old; the number deleted. */
export async function sweepExpired(collection: Collection, seconds: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - seconds * 1000);
  const result = await collection.deleteMany({ createdAt: { $lt: cutoff } });
  return result.deletedCount;
}
