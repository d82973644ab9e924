import { getConnectionToken } from '@nestjs/mongoose';
import mongoose, { type Connection, type mongo } from 'mongoose';
import { useLinkedDriverRegistries } from '../../src/database/patches/mongodb-driver-registries';
import { LinkedSet } from '../../src/database/patches/linked-set';
import { testDatabaseUri } from '../support/test-database';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(60_000);

type Registries = { activeSessions: unknown; activeCursors: unknown };
const registriesOf = (client: mongo.MongoClient) => (client as unknown as { s: Registries }).s;

describe("the MongoDB client's registries of open sessions and cursors", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it("are linked sets in the service's own connection, empty again after its operations", async () => {
    const connection = t.app.get<Connection>(getConnectionToken());
    const registries = registriesOf(connection.getClient());
    expect(registries.activeSessions).toBeInstanceOf(LinkedSet);
    expect(registries.activeCursors).toBeInstanceOf(LinkedSet);

    const collection = connection.collection('driver_registries');
    await collection.insertMany([{ n: 1 }, { n: 2 }, { n: 3 }]);
    await Promise.all([collection.findOne({ n: 1 }), collection.find({}).toArray(), collection.countDocuments({})]);
    expect((registries.activeSessions as LinkedSet<object>).size).toBe(0);
    expect((registries.activeCursors as LinkedSet<object>).size).toBe(0);
  });

  it('still let close() end the open sessions and close the open cursors', async () => {
    const client = new mongoose.mongo.MongoClient(testDatabaseUri(`registries_${Date.now()}`), { serverSelectionTimeoutMS: 5_000 });
    expect(useLinkedDriverRegistries(client)).toBe(true);
    await client.connect();
    try {
      const collection = client.db().collection('docs');
      await collection.insertMany([{ n: 1 }, { n: 2 }, { n: 3 }]);
      const session = client.startSession();
      const cursor = collection.find({}, { batchSize: 1 });
      await cursor.next();
      const registries = registriesOf(client);
      expect((registries.activeSessions as LinkedSet<object>).has(session)).toBe(true);
      expect((registries.activeCursors as LinkedSet<object>).has(cursor)).toBe(true);

      await client.db().dropDatabase();
      await client.close();
      expect(session.hasEnded).toBe(true);
      expect(cursor.closed).toBe(true);
      expect((registries.activeSessions as LinkedSet<object>).size).toBe(0);
      expect((registries.activeCursors as LinkedSet<object>).size).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('stay as they are on a client whose state has another shape', () => {
    const client = { s: { activeSessions: [], activeCursors: new Set() } } as unknown as mongo.MongoClient;
    expect(useLinkedDriverRegistries(client)).toBe(false);
    expect(registriesOf(client).activeSessions).toEqual([]);
    expect(registriesOf(client).activeCursors).toBeInstanceOf(Set);
  });
});
