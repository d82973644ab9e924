import { randomBytes } from 'node:crypto';
import { MongoClient, ObjectId, type Collection, type Db, type Filter } from 'mongodb';

/** Documents whose _id may be of any type, as these cases need. */
type Id = string | number | ObjectId | null;
type Stored = { _id: Id; [field: string]: unknown };
import { testDatabaseUri } from '../support/test-database';

/**
 * The filters the embedded FerretDB answers in PostgreSQL with deploy/ferretdb/filter-pushdown.patch
 * (ranges and lists on `_id`, a root field's existence) answer as MongoDB's do, on the engine the
 * tests run (or a MongoDB given as MONGODB_URI). A pushed-down filter that dropped one true match
 * would lose an event from the search feed or leave an outbox unemptied; each expectation here is
 * computed from MongoDB's rules, not read from the engine.
 */
describe('database engine: _id ranges and lists and field existence answer as on MongoDB', () => {
  let client: MongoClient;
  let db: Db;
  let ferretdb: boolean;

  beforeAll(async () => {
    const name = `filters_${randomBytes(4).toString('hex')}`;
    client = new MongoClient(testDatabaseUri(name));
    await client.connect();
    db = client.db(name);
    ferretdb = 'ferretdbVersion' in (await db.admin().command({ buildInfo: 1 }));
  });

  afterAll(async () => {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  });

  async function freshCollection(prefix: string): Promise<Collection<Stored>> {
    return db.collection(`${prefix}_${randomBytes(3).toString('hex')}`);
  }

  async function idsOf(collection: Collection<Stored>, filter: Filter<Stored>): Promise<string[]> {
    const found = await collection.find(filter).toArray();
    return found.map((document) => JSON.stringify(document._id)).sort();
  }

  /** On FerretDB, whether it sent PostgreSQL a condition for this filter (on MongoDB, nothing to ask). */
  async function pushedDown(collection: Collection<Stored>, filter: Filter<Stored>): Promise<boolean | null> {
    if (!ferretdb) return null;
    const explained = await db.command({ explain: { find: collection.collectionName, filter } });
    return explained.filterPushdown as boolean;
  }

  // Strings MongoDB orders by their UTF-8 bytes: case, accents, other scripts, punctuation and prefixes.
  const strings = [
    'a',
    'B',
    'b',
    'Z',
    'aa',
    'a-1',
    'a_1',
    'a1',
    'é',
    'ä',
    'z',
    'Ω',
    '日本',
    'evt_0a',
    'evt_0b',
    'evt_',
    '',
  ];
  const objectIds = [new ObjectId('6b0b00000000000000000001'), new ObjectId('6b0b00000000000000000002')];
  // A string that spells a stored ObjectId's hex: it is not that ObjectId. (FerretDB's unique index
  // on _id cannot hold both at once, so the string is only asked for, never stored beside it.)
  const hexString = '6b0b00000000000000000002';

  function utf8Compare(left: string, right: string): number {
    return Buffer.compare(Buffer.from(left, 'utf8'), Buffer.from(right, 'utf8'));
  }

  const ranges: Record<string, (sign: number) => boolean> = {
    $gt: (sign) => sign > 0,
    $gte: (sign) => sign >= 0,
    $lt: (sign) => sign < 0,
    $lte: (sign) => sign <= 0,
  };

  it('$gt, $gte, $lt and $lte of a string on _id match the strings above or below it byte by byte, and nothing else', async () => {
    const collection = await freshCollection('ranges');
    await collection.insertMany([
      ...strings.map((_id) => ({ _id })),
      ...objectIds.map((_id) => ({ _id })),
      { _id: 7 },
      { _id: 2.5 },
    ]);
    const storedStrings = strings;
    for (const pivot of ['a', 'B', 'evt_0a', 'évt', 'Z', '', '6b0b', 'zz']) {
      for (const [operator, holds] of Object.entries(ranges)) {
        const expected = storedStrings
          .filter((candidate) => holds(utf8Compare(candidate, pivot)))
          .map((candidate) => JSON.stringify(candidate))
          .sort();
        const filter = { _id: { [operator]: pivot } };
        expect({ filter, found: await idsOf(collection, filter) }).toEqual({ filter, found: expected });
      }
    }
    // Both bounds at once, as a page of ids between two cursors.
    const between = { _id: { $gt: 'a', $lt: 'b' } };
    expect(await idsOf(collection, between)).toEqual(
      storedStrings
        .filter((candidate) => utf8Compare(candidate, 'a') > 0 && utf8Compare(candidate, 'b') < 0)
        .map((candidate) => JSON.stringify(candidate))
        .sort(),
    );
    // A bound holding NUL (which PostgreSQL text cannot hold) is answered too.
    expect(await idsOf(collection, { _id: { $gt: 'a\u0000', $lt: 'b' } })).toEqual(
      storedStrings
        .filter((candidate) => utf8Compare(candidate, 'a\u0000') > 0 && utf8Compare(candidate, 'b') < 0)
        .map((candidate) => JSON.stringify(candidate))
        .sort(),
    );
    if (ferretdb) expect(await pushedDown(collection, { _id: { $gt: 'evt_0a' } })).toBe(true);
  });

  it('$in of strings and ObjectIds on _id matches each listed value of its own type only', async () => {
    const collection = await freshCollection('lists');
    await collection.insertMany([...objectIds.map((_id) => ({ _id })), { _id: 'plain' }, { _id: 3 }]);
    const cases: [Id[], Id[]][] = [
      [[objectIds[1]], [objectIds[1]]],
      [[hexString], []],
      [[objectIds[0].toHexString(), 'plain'], ['plain']],
      [
        [objectIds[0], 'plain', 'missing', new ObjectId()],
        [objectIds[0], 'plain'],
      ],
      [[objectIds[1], hexString], [objectIds[1]]],
      // Operands the patch leaves to FerretDB's own filter: a number, a null.
      [
        [3, 'plain'],
        [3, 'plain'],
      ],
      [[null, objectIds[0]], [objectIds[0]]],
    ];
    for (const [list, expected] of cases) {
      const filter = { _id: { $in: list } };
      expect({ list, found: await idsOf(collection, filter) }).toEqual({
        list,
        found: expected.map((value) => JSON.stringify(value)).sort(),
      });
    }
    // The outbox emptying's shape: an update of a batch of ids, guarded on another field too.
    const { matchedCount } = await collection.updateMany(
      { _id: { $in: [objectIds[0], hexString, 'plain', 'missing'] } },
      { $set: { emptied: true } },
    );
    expect(matchedCount).toBe(2);
    expect(await idsOf(collection, { emptied: true })).toEqual(
      [JSON.stringify(objectIds[0]), JSON.stringify('plain')].sort(),
    );
    // A list longer than the engine sends as parameters, and one holding a string with NUL.
    const long = [...Array.from({ length: 1_500 }, () => new ObjectId()), objectIds[1], 'plain'];
    expect(await idsOf(collection, { _id: { $in: long } })).toEqual(
      [JSON.stringify(objectIds[1]), JSON.stringify('plain')].sort(),
    );
    expect(await idsOf(collection, { _id: { $in: ['pl\u0000ain', 'plain'] } })).toEqual([JSON.stringify('plain')]);
    if (ferretdb) expect(await pushedDown(collection, { _id: { $in: objectIds } })).toBe(true);
  });

  it('$exists true and false of a root field tell a field holding null from a missing one', async () => {
    const collection = await freshCollection('exists');
    await collection.insertMany([
      { _id: new ObjectId(), name: 'holds', outbox: { id: 'evt_1', events: [] } },
      { _id: new ObjectId(), name: 'null', outbox: null },
      { _id: new ObjectId(), name: 'missing' },
      { _id: new ObjectId(), name: 'nested', other: { outbox: 1 } },
      { _id: new ObjectId(), name: 'empty', outbox: [] },
    ]);
    const names = async (filter: Filter<Stored>) =>
      (await collection.find(filter).toArray()).map((document) => document.name as string).sort();
    expect(await names({ outbox: { $exists: true } })).toEqual(['empty', 'holds', 'null']);
    expect(await names({ outbox: { $exists: false } })).toEqual(['missing', 'nested']);
    expect(await names({ 'other.outbox': { $exists: true } })).toEqual(['nested']);
    // The sweep's shape: an aggregation whose first stage matches on existence and another field.
    const swept = await collection
      .aggregate<{ name: string }>([{ $match: { name: { $ne: 'null' }, outbox: { $exists: true } } }])
      .toArray();
    expect(swept.map((document) => document.name).sort()).toEqual(['empty', 'holds']);
    if (ferretdb) expect(await pushedDown(collection, { outbox: { $exists: true } })).toBe(true);
  });
});
