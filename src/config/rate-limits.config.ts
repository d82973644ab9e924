import { configNamespace } from './namespace';

/** Rate limits of the data API. */
export const rateLimitsConfig = configNamespace('rateLimits', (env) => ({ perSecond: env.RATE_LIMIT_PER_SECOND }));
