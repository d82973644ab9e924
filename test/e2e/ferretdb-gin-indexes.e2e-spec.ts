import { randomBytes } from 'node:crypto';
import { Types } from 'mongoose';
import { addGinIndexes, postgresClient } from '../../src/database/patches/ferretdb-gin-indexes';
import { createOwner, TestUser } from '../support/auth';
import { createTestApp, TestApp } from '../support/test-app';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** A GIN index's definition, after `USING gin`, as PostgreSQL lists it. */
const gin = (field: string) => `(((_jsonb -> '${field}'::text))) WITH (fastupdate=off)`;

function planNodes(node: PlanNode | undefined): PlanNode[] {
  return node ? [node, ...(node.Plans ?? []).flatMap(planNodes)] : [];
}

/**
 * On the embedded FerretDB on PostgreSQL, the service adds a GIN index for the leading field of each
 * of its indexes, and PostgreSQL answers FerretDB's tenant filters with them instead of reading every
 * tenant's rows. On any other server (a MongoDB given as MONGODB_URI) the patch does nothing.
 */
describe('GIN indexes for FerretDB on PostgreSQL', () => {
  const postgresUrl = process.env.EMBEDDED_POSTGRES_URL;
  let t: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await createOwner(t.http);
  });

  afterAll(async () => {
    await t?.close();
  });

  /** The service's GIN indexes on FerretDB's table of `collection`, as PostgreSQL lists them. */
  async function ginIndexes(collection: string): Promise<string[]> {
    const pg = postgresClient(postgresUrl!);
    await pg.connect();
    try {
      const schema = t.db.db!.databaseName;
      const { rows } = await pg.query<{ indexdef: string }>(
        `SELECT i.indexdef FROM pg_indexes i
           JOIN ${schema}._ferretdb_database_metadata m ON m._jsonb ->> 'table' = i.tablename
          WHERE i.schemaname = $1 AND m._jsonb ->> '_id' = $2 AND i.indexdef LIKE '%USING gin%'`,
        [schema, collection],
      );
      return rows.map((row) => row.indexdef.replace(/^.* USING gin /, '')).sort();
    } finally {
      await pg.end();
    }
  }

  if (!postgresUrl) {
    it('on MongoDB, adds nothing and connects to no PostgreSQL', async () => {
      const buildInfo = await t.db.db!.admin().command({ buildInfo: 1 });
      const added = addGinIndexes(t.db, 'postgres://127.0.0.1:1/none');
      // FerretDB on SQLite has no PostgreSQL: the service is never given one there, and this one is unreachable.
      if (buildInfo.ferretdbVersion) await expect(added).rejects.toThrow();
      else expect(await added).toEqual([]);
    });
    return;
  }

  it('exists after start for the leading field of every index the schemas declare', async () => {
    expect(await ginIndexes('customers')).toEqual(expect.arrayContaining([gin('_id'), gin('projectId')]));
    // The relay's sweep reads updatedAt by range, which GIN cannot answer.
    expect(await ginIndexes('customers')).not.toContain(gin('updatedAt'));
    expect(await ginIndexes('api_keys')).toEqual(expect.arrayContaining([gin('hash'), gin('projectId')]));
    expect(await ginIndexes('memberships')).toEqual(expect.arrayContaining([gin('accountId'), gin('userId')]));
    // FerretDB does not know of them: its index list is the schema's.
    const listed = (await t.db.collection('customers').listIndexes().toArray()).map((index) => index.name);
    expect(listed.some((name) => /gin/i.test(name))).toBe(false);
  });

  it("answers a tenant's list filter and a hash lookup from them, next to another tenant's rows", async () => {
    const projectId = new Types.ObjectId(owner.projectId);
    const created = await t.http.post(
      '/v1/customers',
      { email: 'a@example.com', firstName: 'Tenant', lastName: 'A', country: 'US', phone: '+1 415 555 0100' },
      { token: owner.token },
    );
    expect(created.status).toBe(201);
    const neighbour = new Types.ObjectId();
    const customers = t.db.collection('customers');
    for (let start = 0; start < 3000; start += 1000) {
      await customers.insertMany(
        Array.from({ length: 1000 }, (_, i) => ({
          projectId: neighbour,
          email: `b${start + i}@example.com`,
          createdAt: new Date(),
        })),
      );
    }
    await t.db.collection('api_keys').insertMany(
      Array.from({ length: 2000 }, () => ({
        projectId: neighbour,
        hash: randomBytes(32).toString('hex'),
        name: 'Neighbour',
        createdAt: new Date(),
      })),
    );
    await t.db.db!.command({ dbStats: 1 }); // FerretDB has PostgreSQL analyse its tables.

    const explained = await t.db.db!.command({
      explain: { find: 'customers', filter: { projectId }, sort: { _id: -1 }, limit: 21 },
    });
    const nodes = planNodes(explained.queryPlanner.Plan);
    expect(nodes.map((node) => node['Node Type'])).toContain('Bitmap Index Scan');
    expect(nodes.map((node) => node['Index Name']).filter(Boolean)).toEqual([expect.stringMatching(/_projectId_gin$/)]);

    const byHash = await t.db.db!.command({
      explain: { find: 'api_keys', filter: { hash: 'f'.repeat(64) }, limit: 1 },
    });
    expect(
      planNodes(byHash.queryPlanner.Plan)
        .map((node) => node['Index Name'])
        .filter(Boolean),
    ).toEqual([expect.stringMatching(/_hash_gin$/)]);

    // The list through the index is the tenant's own, whole.
    const list = await t.http.get('/v1/customers', { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.data.map((customer: { email: string }) => customer.email)).toEqual(['a@example.com']);
  });

  it("answers the event feed's read past its cursor from an index on the id's bytes, not a scan", async () => {
    const schema = t.db.db!.databaseName;
    const created = await t.http.post('/v1/customers', { email: 'feed@example.com' }, { token: owner.token });
    expect(created.status).toBe(201);
    // The filter as FerretDB sends it with our pushdown patch: ask FerretDB, then PostgreSQL.
    const explained = await t.db.db!.command({
      explain: { find: 'events', filter: { _id: { $gt: 'evt_' } }, sort: { _id: 1 }, limit: 100 },
    });
    const conditions = planNodes(explained.queryPlanner.Plan).flatMap((node) =>
      (['Filter', 'Index Cond', 'Recheck Cond'] as const).map(
        (key) => (node as unknown as Record<string, unknown>)[key],
      ),
    );
    const filter = conditions.filter(Boolean).join(' ');
    // The text of the id compared as bytes (PostgreSQL leaves COLLATE "C" out of a plan on a database made with it).
    expect(filter).toMatch(/_jsonb ->> '_id'::text\)\)(::text| COLLATE "C") > 'evt_'::text/);
    const pg = postgresClient(postgresUrl!);
    await pg.connect();
    try {
      const { rows } = await pg.query<{ table: string }>(
        `SELECT _jsonb ->> 'table' AS table FROM ${schema}._ferretdb_database_metadata WHERE _jsonb ->> '_id' = 'events'`,
      );
      // However few rows the table holds yet, the index must be able to answer the filter.
      await pg.query('SET enable_seqscan = off');
      const plan = await pg.query<{ 'QUERY PLAN': PlanNode[] }>(
        `EXPLAIN (FORMAT JSON) SELECT _jsonb FROM "${schema}"."${rows[0].table}" WHERE (_jsonb ->> '_id') COLLATE "C" > $1`,
        ['evt_'],
      );
      const nodes = planNodes((plan.rows[0]['QUERY PLAN'] as unknown as { Plan: PlanNode }[])[0].Plan);
      expect(nodes.map((node) => node['Index Name']).filter(Boolean)).toEqual([expect.stringMatching(/__id_range$/)]);
    } finally {
      await pg.end();
    }
  });

  it('has a small table analysed soon after its first rows, so a lookup there reads its one page instead of the index', async () => {
    const things = t.db.collection('small_things');
    await things.createIndex({ ownerId: 1 });
    await addGinIndexes(t.db, postgresUrl);
    const ownerId = new Types.ObjectId();
    await things.insertMany([{ ownerId }, { ownerId }, { ownerId: new Types.ObjectId() }]);
    const planned = async () => {
      const explained = await t.db.db!.command({ explain: { find: 'small_things', filter: { ownerId }, limit: 1 } });
      return planNodes(explained.queryPlanner.Plan).map((node) => node['Node Type']);
    };
    // Never analysed, PostgreSQL plans the table as if it held 10 pages, and takes the GIN index.
    expect(await planned()).toContain('Bitmap Index Scan');
    // Autovacuum's next look, once the inserts' statistics are out (at most about 10 s later).
    const deadline = Date.now() + 40_000;
    let nodes = await planned();
    while (!nodes.includes('Seq Scan') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      nodes = await planned();
    }
    expect(nodes).toEqual(expect.arrayContaining(['Seq Scan']));
    expect(nodes).not.toContain('Bitmap Index Scan');
  }, 60_000);

  it('is idempotent, and a collection created since gets its index on the next run', async () => {
    const before = await ginIndexes('customers');
    await t.db.collection('later_things').createIndex({ ownerId: 1, at: -1 });
    const made = await addGinIndexes(t.db, postgresUrl);
    expect(made).toEqual(
      expect.arrayContaining([expect.objectContaining({ collection: 'later_things', field: 'ownerId' })]),
    );
    expect(made.filter((index) => index.collection === 'customers').map((index) => index.field)).toEqual(
      expect.arrayContaining(['_id', 'projectId']),
    );
    expect(await ginIndexes('customers')).toEqual(before);
    expect(await ginIndexes('later_things')).toEqual([gin('_id'), gin('ownerId')]);
  });

  it('on another FerretDB version, stands down and adds nothing', async () => {
    await t.db.collection('other_version').createIndex({ tenant: 1 });
    expect(await addGinIndexes(t.db, postgresUrl, 'v1.24.3')).toEqual([]);
    expect(await ginIndexes('other_version')).toEqual([]);
  });
});
