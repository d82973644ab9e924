import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEnvironment, validateEnvironment } from './env.validation';

describe('validateEnvironment', () => {
  it('applies the documented defaults to an empty environment', () => {
    expect(validateEnvironment({})).toMatchObject({
      NODE_ENV: 'development',
      PORT: 3000,
      JWT_EXPIRES_IN: '1h',
      BCRYPT_ROUNDS: 12,
      BODY_LIMIT: 1_048_576,
      LOG_LEVEL: 'info',
    });
  });

  it("takes PUBLIC_URL, unset, from PORT, so a session's Origin check and mail links follow the port", () => {
    expect(validateEnvironment({})).toMatchObject({ PUBLIC_URL: 'http://localhost:3000' });
    expect(validateEnvironment({ PORT: '3320' })).toMatchObject({ PUBLIC_URL: 'http://localhost:3320' });
    expect(validateEnvironment({ PORT: '3320', PUBLIC_URL: 'https://api.example.com' })).toMatchObject({
      PUBLIC_URL: 'https://api.example.com',
    });
  });

  it('converts numbers from their string form', () => {
    expect(validateEnvironment({ PORT: '8080', BCRYPT_ROUNDS: '10' })).toMatchObject({ PORT: 8080, BCRYPT_ROUNDS: 10 });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ MONGODB_URI: 'postgres://x' }, 'MONGODB_URI'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ JWT_EXPIRES_IN: 'forever' }, 'JWT_EXPIRES_IN'],
    [{ BCRYPT_ROUNDS: '3' }, 'BCRYPT_ROUNDS'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV'],
    [{ EMBEDDED_DATABASE_BACKEND: 'mysql' }, 'EMBEDDED_DATABASE_BACKEND'],
    [{ ASSET_PUBLIC_URL: 'https://assets.example.com/files' }, 'ASSET_PUBLIC_URL'],
    [{ ASSET_PUBLIC_URL: 'assets.example.com' }, 'ASSET_PUBLIC_URL'],
    [{ ASSET_CONCURRENT_DOWNLOADS: '0' }, 'ASSET_CONCURRENT_DOWNLOADS'],
    [{ SHARE_PASSWORD_MAX_FAILURES: 'many' }, 'SHARE_PASSWORD_MAX_FAILURES'],
    [{ HTTP_CONNECTION_TIMEOUT_MS: '0' }, 'HTTP_CONNECTION_TIMEOUT_MS'],
    [{ HTTP_REQUEST_TIMEOUT_MS: '10' }, 'HTTP_REQUEST_TIMEOUT_MS'],
    [{ HTTP_KEEP_ALIVE_TIMEOUT_MS: 'idle' }, 'HTTP_KEEP_ALIVE_TIMEOUT_MS'],
  ])('stops on %o with a message naming %s', (env, variable) => {
    expect(() => validateEnvironment(env)).toThrow(new RegExp(`\\b${variable}\\b`));
  });

  const secrets = {
    JWT_SECRET: 'x'.repeat(32),
    CARD_FINGERPRINT_KEY: 'y'.repeat(32),
    FIELD_ENCRYPTION_KEY: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
  };

  it.each(['production', 'test'])('requires every secret outside development (NODE_ENV=%s)', (nodeEnv) => {
    for (const name of Object.keys(secrets)) {
      const missing = { ...secrets, NODE_ENV: nodeEnv, [name]: undefined };
      expect(() => validateEnvironment(missing)).toThrow(
        `${name} is required outside development (NODE_ENV is ${nodeEnv})`,
      );
    }
    expect(() => validateEnvironment({ NODE_ENV: nodeEnv, ...secrets, SMTP_URL: 'smtp://mail:25' })).not.toThrow();
    expect(() => validateEnvironment({ NODE_ENV: 'development' })).not.toThrow();
  });

  it('refuses to start production without SMTP_URL, and only production', () => {
    expect(() => validateEnvironment({ NODE_ENV: 'production', ...secrets })).toThrow(
      'SMTP_URL is required in production (NODE_ENV is production)',
    );
    expect(validateEnvironment({ NODE_ENV: 'production', ...secrets, SMTP_URL: 'smtp://mailpit:1025' }).SMTP_URL).toBe(
      'smtp://mailpit:1025',
    );
    expect(() => validateEnvironment({ NODE_ENV: 'test', ...secrets })).not.toThrow();
    expect(() => validateEnvironment({ NODE_ENV: 'development' })).not.toThrow();
    expect(() => validateEnvironment({ SMTP_URL: 'mailpit:1025' })).toThrow(
      /SMTP_URL must start with smtp:\/\/ or smtps:\/\//,
    );
  });

  it('names FIELD_ENCRYPTION_KEY when its keys are malformed', () => {
    expect(() => validateEnvironment({ FIELD_ENCRYPTION_KEY: 'k1:short' })).toThrow(
      /FIELD_ENCRYPTION_KEY key "k1" must be 32 bytes/,
    );
  });

  it('accepts TRUST_PROXY as false, a hop count or a list of addresses, and nothing else', () => {
    for (const value of ['false', '1', '10.0.0.1', '10.0.0.0/8, 192.168.1.1', '::1']) {
      expect(validateEnvironment({ TRUST_PROXY: value }).TRUST_PROXY).toBe(value);
    }
    expect(() => validateEnvironment({ TRUST_PROXY: 'everyone' })).toThrow(/TRUST_PROXY/);
  });

  it('refuses TRUST_PROXY=true, which would let every client choose its own address', () => {
    expect(() => validateEnvironment({ TRUST_PROXY: 'true' })).toThrow(
      /TRUST_PROXY must be false, a hop count, or a comma-separated list.*true, trusting any X-Forwarded-For, is refused/,
    );
  });

  it('refuses a TRUST_PROXY list whose ranges hold every IPv4 or every IPv6 address, as it refuses true', () => {
    for (const value of [
      '0.0.0.0/0',
      '::/0',
      '0.0.0.0/0,::/0',
      '10.0.0.1, 0.0.0.0/0.0.0.0',
      '0.0.0.0/1,128.0.0.0/1',
      '::ffff:0:0/96',
      '::/1,8000::/1',
      '::/1,8000::/2,c000::/2',
    ]) {
      expect(() => validateEnvironment({ TRUST_PROXY: value })).toThrow(
        /TRUST_PROXY must not trust every IPv[46] address/,
      );
    }
    // Half of each space, or all of IPv6 but the IPv4-mapped callers' form, is a (broad) list of proxies.
    for (const value of ['0.0.0.0/1', '::/1', '10.0.0.0/8,fc00::/7', '10.0.0.0/255.0.0.0', '::ffff:10.0.0.0/104']) {
      expect(validateEnvironment({ TRUST_PROXY: value }).TRUST_PROXY).toBe(value);
    }
  });

  it('names a TRUST_PROXY entry that is no address or CIDR', () => {
    expect(() => validateEnvironment({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(
      /TRUST_PROXY: "10.0.0.0\/33" has no valid prefix length/,
    );
    expect(() => validateEnvironment({ TRUST_PROXY: '10.0.0/8' })).toThrow(
      /TRUST_PROXY: "10.0.0\/8" is not an address or a CIDR/,
    );
  });

  it('takes LOGIN_MAX_FAILURES_PER_EMAIL, a positive whole number, default 100', () => {
    expect(validateEnvironment({}).LOGIN_MAX_FAILURES_PER_EMAIL).toBe(100);
    expect(validateEnvironment({ LOGIN_MAX_FAILURES_PER_EMAIL: '250' }).LOGIN_MAX_FAILURES_PER_EMAIL).toBe(250);
    expect(() => validateEnvironment({ LOGIN_MAX_FAILURES_PER_EMAIL: '0' })).toThrow(/LOGIN_MAX_FAILURES_PER_EMAIL/);
  });

  it('takes the S3 store only with its bucket, and its keys both or neither', () => {
    const bucket = { S3_BUCKET: 'assets', S3_ENDPOINT: 'http://minio:9000', S3_FORCE_PATH_STYLE: 'true' };
    expect(validateEnvironment(bucket)).toMatchObject({
      S3_BUCKET: 'assets',
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
    });
    expect(validateEnvironment({ ...bucket, S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret' })).toMatchObject({
      S3_ACCESS_KEY_ID: 'id',
    });
    expect(() => validateEnvironment({ ...bucket, S3_ACCESS_KEY_ID: 'id' })).toThrow(
      /S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together/,
    );
    expect(() => validateEnvironment({ S3_ENDPOINT: 'http://minio:9000' })).toThrow(/S3_BUCKET is required/);
    expect(() => validateEnvironment({ ...bucket, S3_ENDPOINT: 'minio:9000' })).toThrow(/S3_ENDPOINT must be an http/);
    expect(() => validateEnvironment({ ...bucket, S3_FORCE_PATH_STYLE: 'yes' })).toThrow(
      /S3_FORCE_PATH_STYLE must be true or false/,
    );
  });
});

describe('loadEnvironment', () => {
  const saved = { ...process.env };
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'platform-env-'));
  });
  afterEach(() => {
    process.env = { ...saved };
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads a .env file under the environment: a variable already set wins', () => {
    const file = join(dir, '.env');
    writeFileSync(file, 'PORT=4100\nLOG_LEVEL=debug\n');
    process.env.LOG_LEVEL = 'warn';
    process.env.NODE_ENV = 'development';
    delete process.env.PORT;
    expect(loadEnvironment(file)).toMatchObject({ PORT: 4100, LOG_LEVEL: 'warn' });
  });

  it('validates without a .env file, naming the wrong variable', () => {
    process.env.BCRYPT_ROUNDS = '99';
    expect(() => loadEnvironment(join(dir, 'missing.env'))).toThrow(/BCRYPT_ROUNDS/);
  });
});
