import { Logger } from '@nestjs/common';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FERRETDB_PATCHES_MARK, hasOurPatches, startFerretdbServer } from '../embedded-database';
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
    expect(execFileSync(binary, ['--version'], { encoding: 'utf8' })).toMatch(
      new RegExp(`^version: ${GIN_INDEXES_WRITTEN_FOR}$`, 'm'),
    );
    const script = readFileSync(join(__dirname, '..', '..', '..', 'scripts', 'install-ferretdb.sh'), 'utf8');
    expect(script).toContain(`version="${GIN_INDEXES_WRITTEN_FOR}"`);
  });

  it('on another FerretDB version, no GIN index is added and the database is not touched', async () => {
    const untouched = new Proxy(
      {},
      {
        get: () => {
          throw new Error('the database was touched');
        },
      },
    );
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

describe('FerretDB with atomic guarded writes (deploy/ferretdb/atomic-writes.patch)', () => {
  const patchFile = join(__dirname, '..', '..', '..', 'deploy', 'ferretdb', 'atomic-writes.patch');
  let folder: string;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'ferretdb-mark-'));
  });

  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /** A stand-in binary that answers `--version` with `lines`. */
  function fakeFerretdb(name: string, lines: string[]): string {
    const path = join(folder, name);
    writeFileSync(path, `#!/bin/sh\nprintf '%s\\n' ${lines.map((line) => `'${line}'`).join(' ')}\n`);
    chmodSync(path, 0o755);
    return path;
  }

  it('the binary the tests run carries the mark the install script gives its patched build', async () => {
    const binary = process.env.FERRETDB_BIN || join(homedir(), 'go', 'bin', 'ferretdb');
    await expect(hasOurPatches(binary)).resolves.toBe(true);
    const script = readFileSync(join(__dirname, '..', '..', '..', 'scripts', 'install-ferretdb.sh'), 'utf8');
    expect(script).toContain(`mark="${FERRETDB_PATCHES_MARK}"`);
    expect(script).toContain('"$root"/deploy/ferretdb/*.patch');
    // The patch serialises the three commands that read, then write back.
    const patch = readFileSync(patchFile, 'utf8');
    for (const file of ['msg_update.go', 'msg_delete.go', 'msg_findandmodify.go']) {
      expect(patch).toContain(`+++ b/internal/handler/${file}`);
    }
    // The other turns id ranges and lists and a field's existence into SQL.
    const pushdown = readFileSync(join(patchFile, '..', 'filter-pushdown.patch'), 'utf8');
    expect(pushdown).toContain('+++ b/internal/backends/postgresql/query.go');
  });

  it('a FerretDB without the mark, or of another version, is not taken for a patched one', async () => {
    const shipped = fakeFerretdb('shipped', ['version: v1.24.2', 'package: unknown']);
    const other = fakeFerretdb('other', ['version: v1.24.3', `package: ${FERRETDB_PATCHES_MARK}`]);
    const patched = fakeFerretdb('patched', ['version: v1.24.2', `package: ${FERRETDB_PATCHES_MARK}`]);
    await expect(hasOurPatches(shipped)).resolves.toBe(false);
    await expect(hasOurPatches(other)).resolves.toBe(false);
    await expect(hasOurPatches(join(folder, 'missing'))).resolves.toBe(false);
    await expect(hasOurPatches(patched)).resolves.toBe(true);
  });

  it('FERRETDB_BIN naming a FerretDB without the patch is refused, saying why', async () => {
    const shipped = fakeFerretdb('shipped-bin', ['version: v1.24.2', 'package: unknown']);
    await expect(
      startFerretdbServer({ stateDir: join(folder, 'state'), ferretdbBin: shipped, log: () => undefined }),
    ).rejects.toThrow(/not FerretDB v1\.24\.2 built with deploy\/ferretdb\/atomic-writes\.patch/);
  });

  it('the install script refuses another FerretDB version', () => {
    const script = join(__dirname, '..', '..', '..', 'scripts', 'install-ferretdb.sh');
    const run = spawnSync('bash', [script, join(folder, 'never-built')], {
      env: { ...process.env, FERRETDB_VERSION: 'v1.24.3' },
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('written for FerretDB v1.24.2 only, not v1.24.3');
  });
});
