import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { EmbeddedDatabase, startEmbeddedDatabase } from '../../src/database/embedded-database';
import { createFirstAdmin, TestUser } from '../support/auth';
import { createTestApp, TestApp } from '../support/test-app';

/** FerretDB on SQLite, when asked for (EMBEDDED_DATABASE_BACKEND=sqlite): the service works on it. */
describe('the SQLite backend of the embedded database', () => {
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
    t = await createTestApp({ MONGODB_URI: `${database.uri}smoke${database.clientOptions}` });
    owner = await createFirstAdmin(t.http);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await database?.stop();
  });

  it('runs on SQLite', () => {
    expect(database.backend).toBe('sqlite');
  });

  it('signs up, stores a record of each area (events and audit entries included) and lists them', async () => {
    const as = { token: owner.token };
    const customer = await t.http.post('/v1/customers', { email: 'smoke@example.com' }, as);
    expect(customer.status).toBe(201);
    const client = await t.http.post('/clients', { name: 'Acme Media', email: 'contact@acme.example' }, as);
    expect(client.status).toBe(201);
    const collection = await t.http.post('/collections', { name: 'Starter', pricing: 10 }, as);
    expect(collection.status).toBe(201);
    const card = await t.http.post(
      '/v1/cards',
      { customer: customer.body.data.id, cardNumber: '4242424242424242', expMonth: '12', expYear: '2035', cvc: '123' },
      as,
    );
    expect(card.status).toBe(201);
    const payment = await t.http.post(
      '/api/v1/payments',
      { amount: 10, currency: 'usd', customer: customer.body.data.id, confirm: true },
      as,
    );
    expect(payment.body.status).toBe('succeeded');
    expect((await t.http.post(`/api/v1/payments/${payment.body.id}/refund`, { amount: 2 }, as)).status).toBe(200);
    const channel = await t.http.post(
      '/channels',
      {
        clientId: client.body.id,
        name: 'Studio',
        username: 'smoke_studio',
        avatarUrl: 'https://cdn.example.com/a.png',
        role: 'creator',
      },
      as,
    );
    expect(channel.status).toBe(200);
    expect(
      (
        await t.http.post(
          `/channels/${channel.body.id}/projects`,
          { primaryTitle: 'Blue Hours', projectTypeId: 'album' },
          as,
        )
      ).status,
    ).toBe(201);
    expect((await t.http.post(`/api/v1/platform/projects/${owner.projectId}/keys`, { name: 'smoke' }, as)).status).toBe(
      201,
    );
    expect(
      (
        await t.http.post(
          `/api/v1/accounts/${owner.accountId}/invitations`,
          { email: 'smoke.invite@example.com', role: 'developer' },
          as,
        )
      ).status,
    ).toBe(201);
    expect((await t.http.post('/api/v1/platform/projects', { name: 'Second' }, as)).status).toBe(201);
    expect(
      (await t.http.post('/v1/webhook-endpoints', { url: 'https://8.8.8.8/hooks', enabledEvents: ['*'] }, as)).status,
    ).toBe(201);
    const events = await t.http.get('/v1/events?limit=100', as);
    expect(events.body.data.map((event: { type: string }) => event.type)).toEqual(
      expect.arrayContaining(['customer.created', 'payment.refunded', 'project.created']),
    );
    const audit = await t.http.get(`/api/v1/accounts/${owner.accountId}/audit-log/verify`, as);
    expect(audit.body).toMatchObject({ valid: true });

    const collections = await t.http.get('/collections', as);
    expect(collections.status).toBe(200);
    expect(JSON.stringify(collections.body)).toContain('Starter');
    const customers = await t.http.get('/v1/customers', as);
    expect(customers.status).toBe(200);
    expect(JSON.stringify(customers.body)).toContain('smoke@example.com');
  });
});

describe('choosing SQLite is never silent', () => {
  const folders: string[] = [];
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'platform-backend-'));
    folders.push(dir);
    return dir;
  };

  afterAll(() => {
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  });

  it('a PostgreSQL that cannot start fails the start with its reason and the ways out, and nothing is made on SQLite', async () => {
    const dataDir = folder();
    // A cluster of a PostgreSQL version this one cannot run.
    mkdirSync(join(dataDir, 'postgres'));
    writeFileSync(join(dataDir, 'postgres', 'PG_VERSION'), '9.6\n');
    const start = startEmbeddedDatabase({ dataDir, ferretdbBin: process.env.FERRETDB_BIN, log: () => undefined });
    await expect(start).rejects.toThrow(
      /^The embedded database could not start: PostgreSQL \(under FerretDB\) failed: .+ \(see .*postgres\.log\)\. /,
    );
    await expect(start).rejects.toThrow(/set EMBEDDED_DATABASE_BACKEND=sqlite .*or set MONGODB_URI/);
    // PostgreSQL's own reason, from its log, not only its exit code.
    await expect(start).rejects.toThrow(/could not access the server configuration file/);
    expect(existsSync(join(dataDir, 'ferretdb'))).toBe(false);
    // The folder is not left claimed.
    expect(existsSync(join(dataDir, 'embedded-database.json'))).toBe(false);
  });

  it('data SQLite already keeps stays in use (beside an empty PostgreSQL folder), with a warning that says how to move it', async () => {
    const dataDir = folder();
    const options = { dataDir, ferretdbBin: process.env.FERRETDB_BIN, log: () => undefined };
    const sqlite = await startEmbeddedDatabase({ ...options, backend: 'sqlite' });
    const client = await MongoClient.connect(`${sqlite.uri}kept`);
    await client.db().collection('things').insertOne({ kept: true });
    await client.close();
    await sqlite.stop();
    // What a start that fell back to SQLite left beside it: PostgreSQL's folder, made but never initialised.
    mkdirSync(join(dataDir, 'postgres'));

    const warnings: string[] = [];
    const again = await startEmbeddedDatabase({ ...options, warn: (message) => warnings.push(message) });
    try {
      expect(again.backend).toBe('sqlite');
      expect(warnings).toEqual([expect.stringContaining('npm run db:move-to-postgres')]);
    } finally {
      await again.stop();
    }
  });
});
