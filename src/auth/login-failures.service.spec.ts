import { HttpException } from '@nestjs/common';
import { LoginFailuresService } from './login-failures.service';

function service(maxFailures = 3, windowSeconds = 60) {
  return new LoginFailuresService({
    jwtSecret: 'x',
    jwtExpiresIn: '1h',
    bcryptRounds: 4,
    loginMaxFailures: maxFailures,
    loginFailureWindowSeconds: windowSeconds,
  });
}

describe('LoginFailuresService', () => {
  it('lets a client fail up to the limit, then blocks it with 429 and a retry hint', () => {
    const failures = service(3);
    for (let i = 0; i < 3; i++) {
      expect(() => failures.assertNotBlocked('1.2.3.4', 1_000)).not.toThrow();
      failures.recordFailure('1.2.3.4', 1_000);
    }
    try {
      failures.assertNotBlocked('1.2.3.4', 1_000);
      throw new Error('expected a 429');
    } catch (error) {
      expect(error).toBeInstanceOf(HttpException);
      expect((error as HttpException).getStatus()).toBe(429);
      expect((error as HttpException).message).toBe('Too many failed login attempts. Try again in 60 seconds');
    }
  });

  it('counts each client on its own', () => {
    const failures = service(1);
    failures.recordFailure('a', 0);
    expect(() => failures.assertNotBlocked('a', 0)).toThrow(HttpException);
    expect(() => failures.assertNotBlocked('b', 0)).not.toThrow();
  });

  it('forgets failures when the window ends', () => {
    const failures = service(1, 10);
    failures.recordFailure('a', 0);
    expect(() => failures.assertNotBlocked('a', 9_999)).toThrow(HttpException);
    expect(() => failures.assertNotBlocked('a', 10_000)).not.toThrow();
  });

  it('forgets failures after a successful login', () => {
    const failures = service(2);
    failures.recordFailure('a', 0);
    failures.reset('a');
    failures.recordFailure('a', 0);
    expect(() => failures.assertNotBlocked('a', 0)).not.toThrow();
  });
});
