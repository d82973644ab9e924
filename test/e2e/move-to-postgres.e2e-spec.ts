import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MongoClient } from 'mongodb';
import { startEmbeddedDatabase, type EmbeddedDatabaseOptions } from '../../src/database/embedded-database';

jest.setTimeout(180_000);

const run = promisify(execFile);
const root = join(__dirname, '..', '..');

/** What a database server holds: every collection's count and index keys, per database. */
async function contents(uri: string): Promise<Record<string, { count: number; indexes: string[] }>> {
  const client = await MongoClient.connect(uri);
  try {
    const out: Record<string, { count: number; indexes: string[] }> = {};
    for (const db of ['platform', 'other']) {
      for (const { name } of await client.db(db).listCollections().toArray()) {
        const collection = client.db(db).collection(name);
        const indexes = (await collection.indexes())
          .map((index) => `${JSON.stringify(index.key)}${index.unique ? ' unique' : ''}`)
          .sort();
        out[`${db}.${name}`] = { count: await collection.countDocuments(), indexes };
      }
    }
    return out;
  } finally {
    await client.close();
  }
}

/** `npm run db:move-to-postgres`: the SQLite backend's data copied into the PostgreSQL backend. */
describe('npm run db:move-to-postgres (the built command)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-move-'));
  const options = (backend?: EmbeddedDatabaseOptions['backend']): EmbeddedDatabaseOptions => ({
    dataDir,
    backend,
    ferretdbBin: process.env.FERRETDB_BIN,
    log: () => undefined,
  });
  const move = () =>
    run(process.execPath, [join(root, 'scripts', 'move-to-postgres.mjs')], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir },
    });
  let before: Awaited<ReturnType<typeof contents>>;

  beforeAll(async () => {
    const sqlite = await startEmbeddedDatabase(options('sqlite'));
    const client = await MongoClient.connect(sqlite.uri);
    try {
      const customers = client.db('platform').collection('customers');
      await customers.createIndex({ email: 1 }, { unique: true });
      await customers.createIndex({ projectId: 1, _id: -1 });
      await customers.insertMany(
        Array.from({ length: 120 }, (_, i) => ({ email: `c${i}@example.com`, tags: ['a', 'b'], nested: { n: i } })),
      );
      await client
        .db('other')
        .collection('things')
        .insertMany([{ n: 1 }, { n: 2 }]);
      before = await contents(sqlite.uri);
    } finally {
      await client.close();
      await sqlite.stop();
    }
  });

  it('copies every collection, index and document, and the service then starts on PostgreSQL', async () => {
    expect(before['platform.customers'].count).toBe(120);
    const first = await move();
    expect(first.stderr).toMatch(/Moved\./);
    expect(existsSync(join(dataDir, 'postgres'))).toBe(true);

    const postgres = await startEmbeddedDatabase(options());
    try {
      expect(postgres.backend).toBe('postgresql');
      expect(await contents(postgres.uri)).toEqual(before);
    } finally {
      await postgres.stop();
    }
  });

  it('is idempotent: a second run copies nothing twice', async () => {
    const second = await move();
    expect(second.stderr).toMatch(/platform\.customers: 120 documents in SQLite, 120 in PostgreSQL/);
    const postgres = await startEmbeddedDatabase(options('postgresql'));
    try {
      expect(await contents(postgres.uri)).toEqual(before);
    } finally {
      await postgres.stop();
    }
  });
});
