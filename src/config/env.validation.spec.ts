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

  it('requires JWT_SECRET in production', () => {
    expect(() => validateEnvironment({ NODE_ENV: 'production' })).toThrow('JWT_SECRET is required when NODE_ENV is production');
    expect(() => validateEnvironment({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) })).not.toThrow();
  });
});
