import { Injectable } from '@nestjs/common';

/**
 * The runner's timers by name: each job's interval (named after the job) and its pending first step
 * and retry (`<job>:first`, `<job>:retry`), so stopping a job clears exactly its own and a test can
 * read which are set. Plain Node timers: the runner needs intervals and timeouts only, not cron
 * expressions, so no scheduling library (and its date library) is loaded for them.
 */
@Injectable()
export class JobTimers {
  private readonly intervals = new Map<string, NodeJS.Timeout>();
  private readonly timeouts = new Map<string, NodeJS.Timeout>();

  addInterval(name: string, timer: NodeJS.Timeout): void {
    this.set(this.intervals, name, timer);
  }

  addTimeout(name: string, timer: NodeJS.Timeout): void {
    this.set(this.timeouts, name, timer);
  }

  /** Clears the timer and forgets it; nothing when no timer has that name. */
  delete(type: 'interval' | 'timeout', name: string): void {
    const timers = type === 'interval' ? this.intervals : this.timeouts;
    const timer = timers.get(name);
    if (timer === undefined) return;
    if (type === 'interval') clearInterval(timer);
    else clearTimeout(timer);
    timers.delete(name);
  }

  getIntervals(): string[] {
    return [...this.intervals.keys()];
  }

  getTimeouts(): string[] {
    return [...this.timeouts.keys()];
  }

  private set(timers: Map<string, NodeJS.Timeout>, name: string, timer: NodeJS.Timeout): void {
    if (timers.has(name)) throw new Error(`A timer named ${name} is set already`);
    timers.set(name, timer);
  }
}
