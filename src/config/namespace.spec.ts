import { ConfigService, ConfigType } from '@nestjs/config';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { validateEnvironment } from './env.validation';
import { eventsConfig } from './events.config';
import { configModule } from './namespace';
import { rateLimitsConfig } from './rate-limits.config';

describe('configModule', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('serves each namespace built from the environment it is given, not from process.env', async () => {
    process.env.RATE_LIMIT_PER_SECOND = '99';
    process.env.WEBHOOK_RETRY_SCHEDULE = '1,2';
    const env = validateEnvironment({ RATE_LIMIT_PER_SECOND: '7', WEBHOOK_RETRY_SCHEDULE: '0, 5, 60' });

    @Module({ imports: [configModule(env, [rateLimitsConfig, eventsConfig])] })
    class Fixture {}
    const context = await NestFactory.createApplicationContext(Fixture, { logger: false });
    try {
      expect(context.get<ConfigType<typeof rateLimitsConfig>>(rateLimitsConfig.KEY)).toEqual({
        perSecond: 7,
        viewersPerSecond: 250,
        redisUrl: null,
        sharePassword: { maxFailures: 10, windowMs: 900_000 },
      });
      expect(
        context.get(ConfigService).getOrThrow<ConfigType<typeof eventsConfig>>('events').retryScheduleSeconds,
      ).toEqual([0, 5, 60]);
      // Nothing else reaches the configuration: not a raw variable of the process.
      expect(context.get(ConfigService).get('RATE_LIMIT_PER_SECOND')).toBeUndefined();
    } finally {
      await context.close();
    }
  });

  it('a namespace is not read past the validated environment', () => {
    expect(() => rateLimitsConfig()).toThrow(/built from the validated environment/);
  });
});
