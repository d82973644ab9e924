import { createConnection, Schema } from 'mongoose';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { installedVersion } from './fence';
import { addGinIndexes, GIN_INDEXES_WRITTEN_FOR, indexName } from './ferretdb-gin-indexes';
import { DRIVER_REGISTRIES_WRITTEN_FOR, useLinkedDriverRegistries } from './mongodb-driver-registries';
import { hasOwnSaveMiddleware, SAVE_HOOKS_WRITTEN_FOR } from './mongoose-save-hooks';

/**
 * Every patch of a dependency's internals is fenced to the exact version it was written for. These
 * fail when that version moves: re-read the internals, re-measure (bench/README.md, "Patches"), then
 * move the pin, or drop the patch.
 */
describe('patches of dependencies, fenced by version', () => {
  it('the MongoDB driver mongoose uses is the one the linked registries were written for', () => {
    expect(installedVersion('mongodb', 'mongoose')).toBe(DRIVER_REGISTRIES_WRITTEN_FOR);
  });

  it('the installed Mongoose is the one the save-hook check was written for', () => {
    expect(installedVersion('mongoose')).toBe(SAVE_HOOKS_WRITTEN_FOR);
  });

  it('the FerretDB the embedded database runs is the one the GIN indexes were written for', () => {
    // The binary the tests' embedded database runs (FERRETDB_BIN, else the one Go installs), and the one the install script builds.
    const binary = process.env.FERRETDB_BIN || join(homedir(), 'go', 'bin', 'ferretdb');
    expect(execFileSync(binary, ['--version'], { encoding: 'utf8' })).toMatch(new RegExp(`^version: ${GIN_INDEXES_WRITTEN_FOR}$`, 'm'));
    const script = readFileSync(join(__dirname, '..', '..', '..', 'scripts', 'install-ferretdb.sh'), 'utf8');
    expect(script).toContain(`version="${GIN_INDEXES_WRITTEN_FOR}"`);
  });

  it('on another FerretDB version, no GIN index is added and the database is not touched', async () => {
    const untouched = new Proxy({}, { get: () => { throw new Error('the database was touched'); } });
    const connection = { db: untouched } as never;
    await expect(addGinIndexes(connection, 'postgres://127.0.0.1:1/none', 'v1.24.3')).resolves.toEqual([]);
  });

  it("the GIN indexes' names fit PostgreSQL's 63 bytes and stay apart", () => {
    expect(indexName('customers_c09344de', 'projectId')).toBe('customers_c09344de_projectId_gin');
    const long = indexName('a'.repeat(60), 'projectId');
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).not.toBe(indexName('a'.repeat(60), 'accountId'));
    expect(indexName('t', 'odd field')).toMatch(/^t_[0-9a-f]{8}_gin$/);
  });

  it('on another driver version, the registries are left as shipped', () => {
    const sessions = new Set();
    const client = { s: { activeSessions: sessions, activeCursors: new Set() } } as never;
    expect(useLinkedDriverRegistries(client, '99.0.0')).toBe(false);
    expect((client as { s: { activeSessions: unknown } }).s.activeSessions).toBe(sessions);
  });

  it('on another Mongoose version, the save-hook check answers "unknown", so inserts go through Model.create', async () => {
    const schema = new Schema({ name: String });
    expect(hasOwnSaveMiddleware(schema, '99.0.0')).toBeUndefined();
    expect(hasOwnSaveMiddleware(schema)).toBe(false);
    const hooked = new Schema({ name: String });
    hooked.pre('save', function stamp() {});
    expect(hasOwnSaveMiddleware(hooked)).toBe(true);
  });

  it('Model.create, the fallback, validates before writing, as insertDocument does', async () => {
    // A connection that never connects: an insert that got past validation would fail otherwise.
    const offline = createConnection();
    offline.set('bufferCommands', false);
    try {
      const model = offline.model('Fallback', new Schema({ name: { type: String, required: true } }));
      await expect(model.create({})).rejects.toMatchObject({ name: 'ValidationError' });
    } finally {
      await offline.close();
    }
  });
});
