import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Leases, type FencedHold } from '../leases/leases.service';
import { JobTimers } from './job-timers';

/** First wait before a failed step is tried again; it doubles with every failure in a row. */
const RETRY_FIRST_MS = 1_000;
/** Longest wait before a failed step is tried again. */
const RETRY_MOST_MS = 5 * 60_000;

/** What a step of a job is given. */
export interface JobStep {
  /**
   * The lease's fencing token when the job runs under one (`lease`), else null: the step's writes
   * that a stale holder must not make carry it, and their guard compares it with the record's.
   */
  readonly fence: number | null;
  /** Whether a renewal found the lease taken over: the step may stop early, its fenced writes are refused anyway. */
  readonly leaseLost: () => boolean;
  /** Whether the instance is shutting down: a step working through a batch stops between two items. */
  readonly stopping: () => boolean;
}

/** A periodic job, registered by the module that owns its work. */
export interface JobDefinition {
  /** Unique across the instance; the name its lease, its log lines and `GET /health` show. */
  name: string;
  /** How often a step starts; a step still running when the next is due is not started twice. */
  everyMs: number;
  /** The first step's delay after start-up; `everyMs` unless given. */
  firstAfterMs?: number;
  /**
   * One instance at a time: each step runs under the lease `job:<name>`, held `holdMs` at a time
   * and renewed every third of it while the step runs, with a fencing token. A step whose lease
   * another instance holds is skipped.
   */
  lease?: { holdMs: number };
  run(step: JobStep): Promise<unknown>;
}

/** The owning module's handle on its job. */
export interface JobHandle {
  /** Runs a step now (woken by new work), or right after the one running; nothing once stopping. */
  kick(): void;
  /** No new step starts; resolves once the running one (if any) ended. */
  stop(): Promise<void>;
}

/** A job as `GET /health` reports it, for this instance. */
export interface JobStatus {
  name: string;
  everyMs: number;
  leased: boolean;
  running: boolean;
  lastStartedAt: Date | null;
  lastEndedAt: Date | null;
  /** The last step's error, until a step succeeds. */
  lastError: { message: string; at: Date } | null;
  /** Failed steps in a row: the next try waits 1 s doubled as often, 5 minutes at most. */
  failures: number;
  /** Steps skipped because another instance held the job's lease. */
  heldElsewhere: number;
}

interface Job {
  definition: JobDefinition;
  status: JobStatus;
  running?: Promise<void>;
  again: boolean;
  stopped: boolean;
  retryAt: number;
}

/**
 * Runs every periodic job of the instance: timing through its named timers (`JobTimers`: an
 * interval per job, named after it), one step of a job at a time, a lease with a fencing token for
 * the jobs that must run on one instance at a time, a failed step logged with the job's name and
 * tried again with backoff, and no new step once stopping. It knows no feature: each module
 * registers its job with its own work.
 */
@Injectable()
export class JobRunner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(JobRunner.name);
  private readonly jobs = new Map<string, Job>();
  private started = false;
  private stopping = false;

  constructor(
    private readonly scheduler: JobTimers,
    private readonly leases: Leases,
  ) {}

  /** Registers a job; its first step comes `firstAfterMs` (or `everyMs`) after start-up, or after now once started. */
  register(definition: JobDefinition): JobHandle {
    if (this.jobs.has(definition.name)) throw new Error(`A job named ${definition.name} is registered already`);
    if (!(definition.everyMs > 0)) throw new Error(`The job ${definition.name} needs an interval above 0 ms`);
    const job: Job = {
      definition,
      status: {
        name: definition.name,
        everyMs: definition.everyMs,
        leased: definition.lease !== undefined,
        running: false,
        lastStartedAt: null,
        lastEndedAt: null,
        lastError: null,
        failures: 0,
        heldElsewhere: 0,
      },
      again: false,
      stopped: this.stopping,
      retryAt: 0,
    };
    this.jobs.set(definition.name, job);
    if (this.started) this.schedule(job);
    return { kick: () => this.kick(job), stop: () => this.stopJob(job) };
  }

  /** Every job of this instance, in the order registered. */
  statuses(): JobStatus[] {
    return [...this.jobs.values()].map((job) => ({
      ...job.status,
      lastError: job.status.lastError && { ...job.status.lastError },
    }));
  }

  /** The first step of every job waits its delay: start-up is not the moment to compete for the database. */
  onApplicationBootstrap(): void {
    this.started = true;
    for (const job of this.jobs.values()) this.schedule(job);
  }

  /** Shutdown: no new step starts, and the running ones end (the shutdown's own deadline bounds the wait). */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.jobs.values()].map((job) => this.stopJob(job)));
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  private schedule(job: Job): void {
    if (job.stopped) return;
    const { name, everyMs, firstAfterMs } = job.definition;
    const first = setTimeout(() => {
      this.remove('timeout', this.timeoutName(job, 'first'));
      if (job.stopped) return;
      this.tick(job);
      const interval = setInterval(() => this.tick(job), everyMs);
      interval.unref();
      this.scheduler.addInterval(name, interval);
    }, firstAfterMs ?? everyMs);
    first.unref();
    this.scheduler.addTimeout(this.timeoutName(job, 'first'), first);
  }

  private timeoutName(job: Job, what: 'first' | 'retry'): string {
    return `${job.definition.name}:${what}`;
  }

  /** A regular tick: skipped while a step runs or while a failed one waits for its retry. */
  private tick(job: Job): void {
    if (job.stopped || job.running || Date.now() < job.retryAt) return;
    this.start(job);
  }

  private kick(job: Job): void {
    if (job.stopped || Date.now() < job.retryAt) return;
    if (job.running) {
      job.again = true;
      return;
    }
    this.start(job);
  }

  private start(job: Job): void {
    job.again = false;
    job.running = this.step(job).finally(() => {
      job.running = undefined;
      job.status.running = false;
      if (job.again && !job.stopped) this.kick(job);
    });
  }

  private async step(job: Job): Promise<void> {
    const { definition, status } = job;
    const stopping = () => job.stopped;
    try {
      if (definition.lease) {
        let ran = false;
        await this.leases.tryWithFencedLease(
          `job:${definition.name}`,
          definition.lease.holdMs,
          async (hold: FencedHold) => {
            ran = true;
            this.markStarted(status);
            await definition.run({ fence: hold.fence, leaseLost: () => hold.lost, stopping });
          },
        );
        if (!ran) {
          status.heldElsewhere += 1;
          return;
        }
      } else {
        this.markStarted(status);
        await definition.run({ fence: null, leaseLost: () => false, stopping });
      }
      status.lastError = null;
      status.failures = 0;
      job.retryAt = 0;
    } catch (error) {
      status.failures += 1;
      const waitMs = Math.min(RETRY_FIRST_MS * 2 ** (status.failures - 1), RETRY_MOST_MS);
      const message = (error as Error)?.message ?? String(error);
      status.lastError = { message, at: new Date() };
      job.retryAt = Date.now() + waitMs;
      this.logger.warn(
        `Job ${definition.name} failed (${status.failures} in a row), tried again in ${waitMs} ms: ${message}`,
      );
      this.scheduleRetry(job, waitMs);
    } finally {
      if (status.running) status.lastEndedAt = new Date();
    }
  }

  private markStarted(status: JobStatus): void {
    status.running = true;
    status.lastStartedAt = new Date();
  }

  /** A failed step is tried again after its backoff, also when the job's own interval is longer. */
  private scheduleRetry(job: Job, waitMs: number): void {
    this.remove('timeout', this.timeoutName(job, 'retry'));
    // The job's own next tick comes after the backoff anyway.
    if (job.stopped || waitMs >= job.definition.everyMs) return;
    const retry = setTimeout(() => {
      this.remove('timeout', this.timeoutName(job, 'retry'));
      this.tick(job);
    }, waitMs);
    retry.unref();
    this.scheduler.addTimeout(this.timeoutName(job, 'retry'), retry);
  }

  private async stopJob(job: Job): Promise<void> {
    job.stopped = true;
    this.remove('interval', job.definition.name);
    this.remove('timeout', this.timeoutName(job, 'first'));
    this.remove('timeout', this.timeoutName(job, 'retry'));
    await job.running;
  }

  /** Clears and forgets a timer, if it is there. */
  private remove(type: 'interval' | 'timeout', name: string): void {
    this.scheduler.delete(type, name);
  }
}
