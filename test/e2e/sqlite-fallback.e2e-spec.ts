import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedDatabase, startEmbeddedDatabase } from '../../src/database/embedded-database';
import { createFirstAdmin, TestUser } from '../support/auth';
import { createTestApp, TestApp } from '../support/test-app';

/** FerretDB on SQLite is the fallback where PostgreSQL cannot start: the service still works on it. */
describe('the SQLite fallback of the embedded database', () => {
  let database: EmbeddedDatabase;
  let t: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    database = await startEmbeddedDatabase({
      dataDir: mkdtempSync(join(tmpdir(), 'platform-sqlite-')),
      backend: 'sqlite',
      ferretdbBin: process.env.FERRETDB_BIN,
      log: () => undefined,
    });
    t = await createTestApp({ MONGODB_URI: `${database.uri}smoke` });
    owner = await createFirstAdmin(t.http);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await database?.stop();
  });

  it('runs on SQLite', () => {
    expect(database.backend).toBe('sqlite');
  });

  it('signs up, stores a record of each area and lists them', async () => {
    const as = { token: owner.token };
    const customer = await t.http.post('/v1/customers', { email: 'smoke@example.com' }, as);
    expect(customer.status).toBe(201);
    const client = await t.http.post('/clients', { name: 'Acme Media', email: 'contact@acme.example' }, as);
    expect(client.status).toBe(201);
    const collection = await t.http.post('/collections', { name: 'Starter', pricing: 10 }, as);
    expect(collection.status).toBe(201);

    const collections = await t.http.get('/collections', as);
    expect(collections.status).toBe(200);
    expect(JSON.stringify(collections.body)).toContain('Starter');
    const customers = await t.http.get('/v1/customers', as);
    expect(customers.status).toBe(200);
    expect(JSON.stringify(customers.body)).toContain('smoke@example.com');
  });
});
