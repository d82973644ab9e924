import { MongoClient } from 'mongodb';

/**
 * The URI of a database of this test run: the run's server (the embedded one, or the caller's
 * MONGODB_URI) with its options (a replica set name, say) kept, and the given database name.
 */
export function testDatabaseUri(name: string): string {
  const base = process.env.TEST_MONGODB_BASE_URI;
  if (!base) throw new Error('TEST_MONGODB_BASE_URI is not set: run the tests through jest (global setup)');
  return `${base}${name}${process.env.TEST_MONGODB_URI_OPTIONS ?? ''}`;
}

/** Drops a database a spawned service used; one that was never created is fine. */
export async function dropTestDatabase(uri: string): Promise<void> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    await client.db().dropDatabase();
  } catch {
    // Nothing to drop when the database was never created.
  } finally {
    await client.close();
  }
}
