import { registerAs } from '@nestjs/config';
import { validateEnvironment } from './env.validation';

/** Rate limits of the data API. */
export const rateLimitsConfig = registerAs('rateLimits', () => {
  const env = validateEnvironment(process.env);
  return { perSecond: env.RATE_LIMIT_PER_SECOND };
});
