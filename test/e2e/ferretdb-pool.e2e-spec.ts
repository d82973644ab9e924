import { randomBytes } from 'node:crypto';
import { MongoClient, ObjectId } from 'mongodb';
import { CLIENT_MAX_POOL_SIZE } from '../../src/database/embedded-database';
import { withDeadline } from '../support/deadline';
import { dropTestDatabase, testDatabaseUri } from '../support/test-database';

jest.setTimeout(120_000);

const UPDATES = 300;

/**
 * FerretDB 1.24 holds two of its PostgreSQL connections for each update under way (the read stays
 * open while the write takes a second one). With the driver's default pool of 100 connections and
 * FerretDB's default of 50, a burst of updates took every connection and waited for a second one
 * forever. Every client of the embedded database connects with `clientOptions`, within what its pool holds.
 */
describe('the embedded database under a burst of concurrent updates', () => {
  const uri = testDatabaseUri(`updates_${randomBytes(6).toString('hex')}`);
  let client: MongoClient;

  beforeAll(async () => {
    // Every connection the client may open, open before the burst, as on a service that has been busy.
    const probe = new MongoClient(uri);
    const size = probe.options.maxPoolSize;
    await probe.close();
    let created = 0;
    client = new MongoClient(uri, { minPoolSize: size });
    client.on('connectionCreated', () => (created += 1));
    await client.connect();
    for (let waited = 0; created < size && waited < 600; waited++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(created).toBeGreaterThanOrEqual(size);
  });
  afterAll(async () => {
    await client.close();
    await dropTestDatabase(uri);
  });

  it(`answers ${UPDATES} updates sent at once, none left waiting`, async () => {
    // On the run's own embedded database (not a MONGODB_URI given by the caller).
    if (process.env.TEST_DATABASE_DIR) expect(uri).toContain(`maxPoolSize=${CLIENT_MAX_POOL_SIZE}`);
    const records = client.db().collection<{ _id: ObjectId; n: number; state: string }>('records');
    const ids = Array.from({ length: UPDATES }, () => new ObjectId());
    await records.insertMany(ids.map((_id, n) => ({ _id, n, state: 'new' })));
    const updates = ids.map((_id) => records.updateOne({ _id }, { $set: { state: 'done' } }));
    const results = await withDeadline(Promise.all(updates), 60_000, `${UPDATES} concurrent updates`);
    expect(results.every((result) => result.modifiedCount === 1)).toBe(true);
    expect(await records.countDocuments({ state: 'done' })).toBe(UPDATES);
  });
});
