import { spawn } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

/**
 * Ctrl-C on `npm test` ends Jest without its global teardown: the run's database server and folder
 * must still go. A Jest run of one test that never ends, with the end-to-end tests' global setup, is
 * interrupted once its database is up; its temporary folder must then hold nothing of the run.
 */
describe('an interrupted test run', () => {
  let work: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'interrupted-run-'));
  });

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('stops its database and removes its folder on SIGINT, exiting as interrupted', async () => {
    const temp = join(work, 'tmp');
    const specs = join(work, 'specs');
    mkdirSync(temp);
    mkdirSync(specs);
    writeFileSync(
      join(specs, 'waits.hang.js'),
      "test('waits for the signal', () => new Promise(() => undefined), 600000);\n",
    );
    writeFileSync(
      join(work, 'jest.config.js'),
      `const e2e = require(${JSON.stringify(join(ROOT, 'jest.config.js'))}).projects.find((project) => project.displayName === 'e2e');
module.exports = { ...e2e, displayName: 'interrupted', roots: [${JSON.stringify(specs)}], testMatch: ['**/*.hang.js'] };
`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: temp };
    // The embedded database, which makes the folder; a MongoDB of the caller's would make none.
    delete env.MONGODB_URI;
    for (const name of [
      'TEST_MONGODB_BASE_URI',
      'TEST_MONGODB_URI_OPTIONS',
      'TEST_DATABASE_DIR',
      'SMTP_URL',
      'MAILPIT_API_URL',
      'EMBEDDED_POSTGRES_URL',
    ])
      delete env[name];
    const jest = spawn(
      process.execPath,
      [join(ROOT, 'node_modules/jest/bin/jest.js'), '--config', join(work, 'jest.config.js'), '--runInBand'],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    jest.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    jest.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((done) => jest.on('exit', (code) => done(code)));

    await new Promise<void>((ready, failed) => {
      const check = setInterval(() => {
        if (output.includes('Test database:')) {
          clearInterval(check);
          ready();
        }
      }, 200);
      void exited.then(() => {
        clearInterval(check);
        failed(new Error(`Jest ended before its database was up:\n${output}`));
      });
    });
    const folders = readdirSync(temp).filter((name) => name.startsWith('platform-test-db-'));
    expect(folders).toHaveLength(1);
    // Run as root, PostgreSQL's cluster is kept where its user can reach it, linked from the folder.
    const link = join(temp, folders[0], 'postgres');
    const cluster = lstatSync(link).isSymbolicLink() ? resolve(join(temp, folders[0]), readlinkSync(link)) : link;
    expect(existsSync(join(cluster, 'PG_VERSION'))).toBe(true);

    jest.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(output).toContain('SIGINT: stopping the test database and mail server');
    expect(readdirSync(temp).filter((name) => name.startsWith('platform-test-db-'))).toEqual([]);
    expect(existsSync(cluster)).toBe(false);
  }, 180_000);
});
