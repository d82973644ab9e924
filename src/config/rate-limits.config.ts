import { configNamespace } from './namespace';

/** Rate limits of the data API, and where they are counted (Redis, shared by every instance, or each instance's memory). */
export const rateLimitsConfig = configNamespace('rateLimits', (env) => ({
  perSecond: env.RATE_LIMIT_PER_SECOND,
  /** Every viewer of one publishable key together; each client address of them gets `perSecond`. */
  viewersPerSecond: env.VIEWER_RATE_LIMIT_PER_SECOND,
  redisUrl: env.REDIS_URL ?? null,
  /** Wrong passwords one share link takes within the window before it answers 429. */
  sharePassword: { maxFailures: env.SHARE_PASSWORD_MAX_FAILURES, windowMs: env.SHARE_PASSWORD_WINDOW_SECONDS * 1000 },
}));
