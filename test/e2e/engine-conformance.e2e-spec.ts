import { randomBytes } from 'node:crypto';
import { MongoClient, ObjectId, type Collection, type Db } from 'mongodb';
import { testDatabaseUri } from '../support/test-database';

/**
 * What the service relies on from its database, MongoDB's single-document atomicity, checked on the
 * engine the tests run (the embedded FerretDB with deploy/ferretdb/atomic-writes.patch, or a
 * MongoDB given as MONGODB_URI). Without the patch, FerretDB's guarded writes match several times
 * and concurrent updates of one document lose changes: each case here failed on FerretDB as shipped.
 */
describe("database engine: one document's write is atomic with its filter", () => {
  let client: MongoClient;
  let db: Db;
  let name: string;

  beforeAll(async () => {
    name = `engine_${randomBytes(4).toString('hex')}`;
    // Enough connections for every concurrent command below to be under way at once.
    client = new MongoClient(testDatabaseUri(name), { maxPoolSize: 25 });
    await client.connect();
    db = client.db(name);
  });

  afterAll(async () => {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  });

  async function freshCollection(prefix: string): Promise<Collection> {
    const collection = db.collection(`${prefix}_${randomBytes(3).toString('hex')}`);
    await collection.insertOne({ _id: new ObjectId(), warmUp: true });
    await collection.deleteMany({});
    return collection;
  }

  it('6 concurrent guarded findOneAndUpdate calls on one document match exactly once, 20 rounds out of 20', async () => {
    const collection = await freshCollection('claims');
    const matchesPerRound: number[] = [];
    for (let round = 0; round < 20; round++) {
      const _id = new ObjectId();
      await collection.insertOne({ _id, status: 'pending', claimedBy: null });
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, claimant) =>
          collection.findOneAndUpdate(
            { _id, status: 'pending' },
            { $set: { status: 'claimed', claimedBy: claimant } },
            { returnDocument: 'after' },
          ),
        ),
      );
      const winners = results.filter((result) => result !== null);
      matchesPerRound.push(winners.length);
      const stored = await collection.findOne({ _id });
      expect(stored?.status).toBe('claimed');
      if (winners.length === 1) expect(stored?.claimedBy).toBe(winners[0]!.claimedBy);
    }
    expect(matchesPerRound).toEqual(Array(20).fill(1));
  });

  it('6 concurrent guarded updateOne calls on one document modify it exactly once, 20 rounds out of 20', async () => {
    const collection = await freshCollection('guarded');
    const modifiedPerRound: number[] = [];
    for (let round = 0; round < 20; round++) {
      const _id = new ObjectId();
      await collection.insertOne({ _id, version: 0 });
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, writer) =>
          collection.updateOne({ _id, version: 0 }, { $set: { version: 1, writer } }),
        ),
      );
      modifiedPerRound.push(results.reduce((sum, result) => sum + result.modifiedCount, 0));
    }
    expect(modifiedPerRound).toEqual(Array(20).fill(1));
  });

  it('20 concurrent $inc on one document lose nothing', async () => {
    const collection = await freshCollection('counters');
    const _id = new ObjectId();
    await collection.insertOne({ _id, count: 0 });
    await Promise.all(Array.from({ length: 20 }, () => collection.updateOne({ _id }, { $inc: { count: 1 } })));
    expect((await collection.findOne({ _id }))?.count).toBe(20);
  });

  it('concurrent updates of different fields of one document keep every field, 10 rounds out of 10', async () => {
    const collection = await freshCollection('fields');
    const fields = ['name', 'email', 'phone', 'city', 'country', 'note'];
    for (let round = 0; round < 10; round++) {
      const _id = new ObjectId();
      await collection.insertOne({ _id });
      await Promise.all(
        fields.map((field) => collection.updateOne({ _id }, { $set: { [field]: `${field}-${round}` } })),
      );
      const stored = await collection.findOne({ _id });
      expect(fields.filter((field) => stored?.[field] !== `${field}-${round}`)).toEqual([]);
    }
  });

  it('6 concurrent guarded deletes of one document remove it once, 20 rounds out of 20', async () => {
    const collection = await freshCollection('deletes');
    const deletedPerRound: number[] = [];
    for (let round = 0; round < 20; round++) {
      const _id = new ObjectId();
      await collection.insertOne({ _id, status: 'active' });
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          i % 2 === 0
            ? collection.deleteOne({ _id, status: 'active' })
            : collection.findOneAndDelete({ _id, status: 'active' }).then((found) => ({ deletedCount: found ? 1 : 0 })),
        ),
      );
      deletedPerRound.push(results.reduce((sum, result) => sum + result.deletedCount, 0));
    }
    expect(deletedPerRound).toEqual(Array(20).fill(1));
  });

  it('a guarded update racing a guarded delete of one document: one of them applies, and a deleted document stays deleted', async () => {
    const collection = await freshCollection('race');
    for (let round = 0; round < 20; round++) {
      const _id = new ObjectId();
      await collection.insertOne({ _id, status: 'active' });
      const [updated, deleted] = await Promise.all([
        collection.updateOne({ _id, status: 'active' }, { $set: { status: 'archived' } }),
        collection.deleteOne({ _id, status: 'active' }),
      ]);
      const stored = await collection.findOne({ _id });
      expect(updated.modifiedCount + deleted.deletedCount).toBe(1);
      if (deleted.deletedCount === 1) expect(stored).toBeNull();
      else expect(stored?.status).toBe('archived');
    }
  });
});
