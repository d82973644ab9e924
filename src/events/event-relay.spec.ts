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

  it('goes on from where the last sweep that finished stopped, kept in the database, a minute before it; before any, a day back', async () => {
    jest.useFakeTimers({ now: new Date('2026-11-27T00:00:00Z') });
    // Outside an application Nest's logger is the console's: the outage's warnings are asserted, not printed.
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const config = { retentionDays: 30, sweepIntervalMs: 15_000, sweepGraceMs: 30_000, sweepLookBackMs: 60_000, sweepStartLookBackMs: 86_400_000 };
    let databaseDown = false;
    const leases = {
      tryWithLease: (_name: string, _ms: number, work: () => Promise<number>) => (databaseDown ? Promise.reject(new Error('connection reset')) : work()),
    };
    let mark: Date | null = null;
    const events = {
      expireByAge: () => Promise.resolve(() => undefined),
      sweptUntil: () => Promise.resolve(mark),
      markSwept: (until: Date) => Promise.resolve(void (mark = until)),
    };
    const relayOf = () => new EventRelay(events as unknown as EventsRepository, leases as unknown as Leases, config as ConfigType<typeof eventsConfig>);
    const lookBacks: number[] = [];
    const started = async () => {
      const relay = relayOf();
      jest.spyOn(relay, 'sweep').mockImplementation((_graceMs, lookBackMs) => {
        lookBacks.push(lookBackMs!);
        return Promise.resolve(0);
      });
      await relay.onApplicationBootstrap();
      return relay;
    };
    const relay = await started();
    await jest.advanceTimersByTimeAsync(30_000);
    databaseDown = true;
    await jest.advanceTimersByTimeAsync(600_000);
    databaseDown = false;
    await jest.advanceTimersByTimeAsync(15_000);
    await relay.onModuleDestroy();
    // The last sweep that finished ran at 00:00:30 (its changes up to 00:00:00); the next one at 00:10:45.
    expect(lookBacks).toEqual([86_400_000, 75_000, 675_000]);
    expect(mark).toEqual(new Date('2026-11-27T00:10:15Z'));
    // Every tick of the ten minutes' outage (00:00:45 to 00:10:30) said why it did not sweep.
    expect(warn.mock.calls.map(([message]) => message)).toEqual(Array.from({ length: 40 }, () => 'Event sweep failed: connection reset'));

    // Another instance, started a minute later, goes on from that mark: it does not read the day again.
    await jest.advanceTimersByTimeAsync(60_000);
    const next = await started();
    await jest.advanceTimersByTimeAsync(15_000);
    await next.onModuleDestroy();
    expect(lookBacks.at(-1)).toBe(75_000 + 60_000);
  });
});
