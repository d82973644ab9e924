import { Logger } from '@nestjs/common';
import type { FencedHold, Leases } from '../leases/leases.service';
import { JobRunner, type JobStep } from './job-runner';
import { JobTimers } from './job-timers';

/** Fenced leases kept in memory, as the database keeps them: a token that grows with every holder. */
class MemoryLeases {
  readonly held = new Set<string>();
  private readonly fences = new Map<string, number>();

  async tryWithFencedLease<T>(
    key: string,
    _holdMs: number,
    work: (hold: FencedHold) => Promise<T>,
  ): Promise<T | undefined> {
    if (this.held.has(key)) return undefined;
    this.held.add(key);
    const fence = (this.fences.get(key) ?? 0) + 1;
    this.fences.set(key, fence);
    try {
      return await work({ fence, lost: false });
    } finally {
      this.held.delete(key);
    }
  }
}

function setUp() {
  const leases = new MemoryLeases();
  const scheduler = new JobTimers();
  const runner = new JobRunner(scheduler, leases as unknown as Leases);
  return { runner, scheduler, leases };
}

describe('JobRunner', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => {
    jest.useFakeTimers({ now: new Date('2026-11-29T00:00:00Z') });
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => {
    warn.mockRestore();
    jest.useRealTimers();
  });

  it('runs each job at its interval through its named timers, never two steps of one job at once', async () => {
    const { runner, scheduler } = setUp();
    const starts: number[] = [];
    let running = 0;
    let most = 0;
    runner.register({
      name: 'slow',
      everyMs: 1_000,
      run: async () => {
        starts.push(Date.now());
        most = Math.max(most, ++running);
        // Each step lasts two and a half intervals.
        await new Promise((done) => setTimeout(done, 2_500));
        running--;
      },
    });
    runner.onApplicationBootstrap();
    expect(scheduler.getTimeouts()).toEqual(['slow:first']);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(scheduler.getIntervals()).toEqual(['slow']);
    await jest.advanceTimersByTimeAsync(7_000);
    expect(most).toBe(1);
    const t0 = new Date('2026-11-29T00:00:00Z').getTime();
    // Started at 1 s; the ticks at 2 and 3 s find it running; the next starts at the tick after it ends.
    expect(starts.map((at) => at - t0)).toEqual([1_000, 4_000, 7_000]);
    const stopped = runner.stop();
    await jest.advanceTimersByTimeAsync(2_000);
    await stopped;
    expect(scheduler.getIntervals()).toEqual([]);
  });

  it('logs a failed step with its name and error, tries it again after 1, 2, 4 s, and reports it until a step succeeds', async () => {
    const { runner } = setUp();
    const starts: number[] = [];
    let failing = true;
    runner.register({
      name: 'hourly',
      everyMs: 3_600_000,
      firstAfterMs: 10,
      run: () => {
        starts.push(Date.now());
        return failing ? Promise.reject(new Error('connection reset')) : Promise.resolve();
      },
    });
    runner.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(10);
    const t0 = Date.now();
    expect(runner.statuses()[0]).toMatchObject({
      name: 'hourly',
      everyMs: 3_600_000,
      failures: 1,
      running: false,
      lastError: { message: 'connection reset' },
    });
    await jest.advanceTimersByTimeAsync(1_000 + 2_000 + 4_000 - 1);
    failing = false;
    await jest.advanceTimersByTimeAsync(1);
    expect(starts.map((at) => at - t0)).toEqual([0, 1_000, 3_000, 7_000]);
    expect(warn.mock.calls.map(([message]) => message)).toEqual([
      'Job hourly failed (1 in a row), tried again in 1000 ms: connection reset',
      'Job hourly failed (2 in a row), tried again in 2000 ms: connection reset',
      'Job hourly failed (3 in a row), tried again in 4000 ms: connection reset',
    ]);
    const [status] = runner.statuses();
    expect(status).toMatchObject({ failures: 0, lastError: null });
    expect(status.lastStartedAt).toEqual(new Date(t0 + 7_000));
    expect(status.lastEndedAt).toEqual(new Date(t0 + 7_000));
    // The next regular step is an hour after the first.
    await jest.advanceTimersByTimeAsync(3_600_000);
    expect(starts).toHaveLength(5);
    await runner.stop();
  });

  it('stops: the running step finishes and is told, no step starts after, and a kick does nothing', async () => {
    const { runner, scheduler } = setUp();
    const seen: string[] = [];
    const handle = runner.register({
      name: 'batch',
      everyMs: 1_000,
      run: async (step: JobStep) => {
        for (let item = 0; item < 5; item++) {
          if (step.stopping()) return seen.push('stopped early');
          await new Promise((done) => setTimeout(done, 100));
          seen.push(`item ${item}`);
        }
      },
    });
    runner.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(1_120);
    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(50);
    expect(stopped).toBe(false);
    await jest.advanceTimersByTimeAsync(50);
    await stopping;
    expect(seen).toEqual(['item 0', 'item 1', 'stopped early']);
    handle.kick();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(seen).toHaveLength(3);
    expect(scheduler.getIntervals()).toEqual([]);
    expect(scheduler.getTimeouts()).toEqual([]);
  });

  it('runs a leased job under a fencing token that grows with every holder, and skips a step whose lease another instance holds', async () => {
    const { runner, leases } = setUp();
    const fences: (number | null)[] = [];
    const handle = runner.register({
      name: 'sweep',
      everyMs: 1_000,
      lease: { holdMs: 1_000 },
      run: (step) => Promise.resolve(void fences.push(step.fence)),
    });
    runner.register({ name: 'local', everyMs: 1_000, run: (step) => Promise.resolve(void fences.push(step.fence)) });
    runner.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(2_000);
    leases.held.add('job:sweep');
    await jest.advanceTimersByTimeAsync(1_000);
    leases.held.delete('job:sweep');
    handle.kick();
    await jest.advanceTimersByTimeAsync(0);
    expect(fences).toEqual([1, null, 2, null, null, 3]);
    expect(runner.statuses()).toEqual([
      expect.objectContaining({ name: 'sweep', leased: true, heldElsewhere: 1 }),
      expect.objectContaining({ name: 'local', leased: false, heldElsewhere: 0 }),
    ]);
    await runner.stop();
  });

  it('refuses a second job of one name', () => {
    const { runner } = setUp();
    runner.register({ name: 'once', everyMs: 1_000, run: () => Promise.resolve() });
    expect(() => runner.register({ name: 'once', everyMs: 1_000, run: () => Promise.resolve() })).toThrow(
      'A job named once is registered already',
    );
  });
});
