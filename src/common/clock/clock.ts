import { Global, Injectable, Module } from '@nestjs/common';

/**
 * The service's idea of "now", injected wherever a rule depends on time (API key expiry and the
 * grace of a rolled key), so tests move time instead of sleeping: `jest.spyOn(app.get(Clock), 'now')`.
 */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}

/** One clock for the whole application: global, so every module that asks for it shares the same instance. */
@Global()
@Module({ providers: [Clock], exports: [Clock] })
export class ClockModule {}
