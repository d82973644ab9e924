import { configNamespace } from './namespace';

/** Rate limits of the data API, and where they are counted (Redis, shared by every instance, or each instance's memory). */
export const rateLimitsConfig = configNamespace('rateLimits', (env) => ({ perSecond: env.RATE_LIMIT_PER_SECOND, redisUrl: env.REDIS_URL ?? null }));
