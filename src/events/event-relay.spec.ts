import { Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { eventsConfig } from '../config/events.config';
import type { Leases } from '../leases/leases.service';
import { EventRelay } from './event-relay';
import type { EventsRepository } from './events.repository';

describe('the events sweep', () => {
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('looks back a day at first, then five minutes, and after an outage as far as the last sweep that finished', async () => {
    jest.useFakeTimers({ now: new Date('2026-11-27T00:00:00Z') });
    // Outside an application Nest's logger is the console's: the outage's warnings are asserted, not printed.
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const config = { retentionDays: 30, sweepIntervalMs: 15_000, sweepGraceMs: 30_000, sweepLookBackMs: 300_000, sweepStartLookBackMs: 86_400_000 };
    let databaseDown = false;
    const leases = {
      tryWithLease: (_name: string, _ms: number, work: () => Promise<number>) => (databaseDown ? Promise.reject(new Error('connection reset')) : work()),
    };
    const events = { expireByAge: () => Promise.resolve(() => undefined) };
    const relay = new EventRelay(events as unknown as EventsRepository, leases as unknown as Leases, config as ConfigType<typeof eventsConfig>);
    const lookBacks: number[] = [];
    jest.spyOn(relay, 'sweep').mockImplementation((_graceMs, lookBackMs) => {
      lookBacks.push(lookBackMs!);
      return Promise.resolve(0);
    });
    await relay.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(30_000);
    databaseDown = true;
    await jest.advanceTimersByTimeAsync(600_000);
    databaseDown = false;
    await jest.advanceTimersByTimeAsync(15_000);
    await relay.onModuleDestroy();
    // The last sweep that finished ran at 00:00:30 (its changes up to 00:00:00); the next one at 00:10:45.
    expect(lookBacks).toEqual([86_400_000, 300_000, 615_000]);
    // Every tick of the ten minutes' outage (00:00:45 to 00:10:30) said why it did not sweep.
    expect(warn.mock.calls.map(([message]) => message)).toEqual(Array.from({ length: 40 }, () => 'Event sweep failed: connection reset'));
  });
});
