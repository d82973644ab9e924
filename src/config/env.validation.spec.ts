import { validateEnvironment } from './env.validation';

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
  ])('stops on %o with a message naming %s', (env, variable) => {
    expect(() => validateEnvironment(env)).toThrow(new RegExp(`\\b${variable}\\b`));
  });

  it.each(['production', 'test'])('requires JWT_SECRET outside development (NODE_ENV=%s)', (nodeEnv) => {
    expect(() => validateEnvironment({ NODE_ENV: nodeEnv })).toThrow(`JWT_SECRET is required outside development (NODE_ENV is ${nodeEnv})`);
    expect(() => validateEnvironment({ NODE_ENV: nodeEnv, JWT_SECRET: 'x'.repeat(32) })).not.toThrow();
  });

  it('accepts TRUST_PROXY as false, a hop count or a list of addresses, and nothing else', () => {
    for (const value of ['false', '1', '10.0.0.1', '10.0.0.0/8, 192.168.1.1', '::1']) {
      expect(validateEnvironment({ TRUST_PROXY: value }).TRUST_PROXY).toBe(value);
    }
    expect(() => validateEnvironment({ TRUST_PROXY: 'everyone' })).toThrow(/TRUST_PROXY/);
  });
});
