import { Logger } from '@nestjs/common';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { addGinIndexes, GIN_INDEXES_WRITTEN_FOR, indexName } from './ferretdb-gin-indexes';

/**
 * Every patch of a dependency's internals is fenced to the exact version it was written for. These
 * fail when that version moves: re-read the internals, re-measure (bench/README.md, "Patches"), then
 * move the pin, or drop the patch.
 */
describe('patches of dependencies, fenced by version', () => {
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
    // Outside an application Nest's logger is the console's: the fence's warning is asserted, not printed.
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      await expect(addGinIndexes(connection, 'postgres://127.0.0.1:1/none', 'v1.24.3')).resolves.toEqual([]);
      expect(warn.mock.calls.map(([message]) => message)).toEqual([
        `GIN indexes for FerretDB's equality filters: written for FerretDB ${GIN_INDEXES_WRITTEN_FOR}, v1.24.3 is installed; using FerretDB as shipped`,
      ]);
    } finally {
      warn.mockRestore();
    }
  });

  it("the GIN indexes' names fit PostgreSQL's 63 bytes and stay apart", () => {
    expect(indexName('customers_c09344de', 'projectId')).toBe('customers_c09344de_projectId_gin');
    const long = indexName('a'.repeat(60), 'projectId');
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).not.toBe(indexName('a'.repeat(60), 'accountId'));
    expect(indexName('t', 'odd field')).toMatch(/^t_[0-9a-f]{8}_gin$/);
  });
});
