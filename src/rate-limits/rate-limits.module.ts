import { Global, Module } from '@nestjs/common';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimiter } from './rate-limiter';

/**
 * Rate limits of the data API (the guard is global, registered in AppModule after the tenancy
 * guard). Invariant: each API key, and each user in each platform project, gets
 * `RATE_LIMIT_PER_SECOND` requests a second, counted across every instance in Redis when
 * `REDIS_URL` is set; while Redis cannot be reached each instance counts alone, and no request
 * fails for it.
 */
@Global()
@Module({
  providers: [RateLimiter, RateLimitGuard],
  exports: [RateLimiter, RateLimitGuard],
})
export class RateLimitsModule {}
