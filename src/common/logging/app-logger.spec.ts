import type { LoggerService } from '@nestjs/common';
import { AppLogger } from './app-logger';

describe('AppLogger', () => {
  function recording() {
    const calls: [string, unknown, unknown[]][] = [];
    const inner: LoggerService = {
      log: (message, ...rest) => calls.push(['log', message, rest]),
      error: (message, ...rest) => calls.push(['error', message, rest]),
      warn: (message, ...rest) => calls.push(['warn', message, rest]),
      debug: (message, ...rest) => calls.push(['debug', message, rest]),
    };
    return { logger: new AppLogger(inner), calls };
  }

  it("puts Nest's per-module and per-route start-up lines at debug", () => {
    const { logger, calls } = recording();
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('Mapped {/health, GET} route', 'RouterExplorer');
    logger.log('HealthController {/health}:', 'RoutesResolver');
    expect(calls.map(([level]) => level)).toEqual(['debug', 'debug', 'debug']);
  });

  it('keeps every other line at its level, with its context', () => {
    const { logger, calls } = recording();
    logger.log('Listening on http://0.0.0.0:3000', 'Bootstrap');
    logger.warn('JWT_SECRET is not set', 'AuthConfig');
    logger.error('Shutdown failed', 'Bootstrap');
    expect(calls).toEqual([
      ['log', 'Listening on http://0.0.0.0:3000', ['Bootstrap']],
      ['warn', 'JWT_SECRET is not set', ['AuthConfig']],
      ['error', 'Shutdown failed', ['Bootstrap']],
    ]);
  });
});
