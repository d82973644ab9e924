import { Logger } from '@nestjs/common';
import * as fs from 'node:fs';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authConfig, developmentSecretFromDataDir } from './auth.config';
import { validateEnvironment } from './env.validation';

// linkSync stays the real one unless a test stages a race through it.
jest.mock('node:fs', () => {
  const actual = jest.requireActual<typeof import('node:fs')>('node:fs');
  return { ...actual, linkSync: jest.fn(actual.linkSync) };
});

describe('development JWT secret in DATA_DIR', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = join(mkdtempSync(join(tmpdir(), 'platform-auth-config-')), 'data');
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  });

  // The auth namespace of a service started with exactly these variables.
  const authConfigOf = (env: Record<string, string>) => authConfig.build(validateEnvironment(env));

  it('creates the secret file once, mode 0600, and reads it back after that', () => {
    const first = developmentSecretFromDataDir(dataDir);
    expect(first.created).toBe(true);
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    expect(first.file).toBe(join(dataDir, 'jwt-secret'));
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
    expect(readFileSync(first.file, 'utf8').trim()).toBe(first.secret);

    const second = developmentSecretFromDataDir(dataDir);
    expect(second).toEqual({ ...first, created: false });
    // Nothing is left beside it.
    expect(fs.readdirSync(dataDir)).toEqual(['jwt-secret']);
  });

  it('development without JWT_SECRET signs with the file secret, the same for every instance on that DATA_DIR', () => {
    const secret = authConfigOf({ NODE_ENV: 'development', DATA_DIR: dataDir }).jwtSecret;
    expect(secret).toBe(readFileSync(join(dataDir, 'jwt-secret'), 'utf8').trim());
    // Another instance: the file already exists, so it reads the same secret.
    expect(developmentSecretFromDataDir(dataDir).secret).toBe(secret);
  });

  it('keeps an operator-written secret as it is', () => {
    fs.mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'jwt-secret'), `${'s'.repeat(40)}\n`);
    expect(authConfigOf({ NODE_ENV: 'development', DATA_DIR: dataDir }).jwtSecret).toBe('s'.repeat(40));
  });

  it('refuses a file that holds no usable secret instead of replacing it', () => {
    fs.mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'jwt-secret'), 'short\n');
    expect(() => developmentSecretFromDataDir(dataDir)).toThrow(/no usable JWT secret.*delete it/);
  });

  it('two instances starting at once agree: the loser of the race reads the winner’s secret', () => {
    const winner = 'w'.repeat(64);
    const link = jest.requireActual<typeof import('node:fs')>('node:fs').linkSync;
    jest.mocked(fs.linkSync).mockImplementationOnce((existing, target) => {
      // The other instance puts its file in place between our read and our link.
      writeFileSync(target, `${winner}\n`, { mode: 0o600 });
      return link(existing, target);
    });
    const result = developmentSecretFromDataDir(dataDir);
    expect(result).toMatchObject({ secret: winner, created: false });
    expect(fs.readdirSync(dataDir)).toEqual(['jwt-secret']);
  });

  it('an explicit JWT_SECRET wins, and no file is written', () => {
    expect(authConfigOf({ NODE_ENV: 'development', DATA_DIR: dataDir, JWT_SECRET: 'x'.repeat(32) }).jwtSecret).toBe(
      'x'.repeat(32),
    );
    expect(existsSync(dataDir)).toBe(false);
  });

  it('test runs need their own JWT_SECRET: no secret is made for them', () => {
    expect(() => authConfigOf({ NODE_ENV: 'test', DATA_DIR: dataDir })).toThrow(
      /JWT_SECRET is required outside development/,
    );
    expect(existsSync(dataDir)).toBe(false);
  });
});
