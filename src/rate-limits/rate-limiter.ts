import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyRateLimit, { type FastifyRateLimitOptions } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { LazyLibrary } from '../common/lazy/lazy-library';
import { rateLimitsConfig } from '../config/rate-limits.config';
import { growingLru } from '../common/cache/growing-lru';

/** Redis's client: loaded at start with REDIS_URL, never without it. */
const ioredis = new LazyLibrary<typeof import('ioredis')>('ioredis');

/** Where a caller stands against its limit after this request. */
export interface RateLimitState {
  limit: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
  exceeded: boolean;
}

type Counted =
  { isAllowed: true } | { isAllowed: false; max: number; remaining: number; ttlInSeconds: number; isExceeded: boolean };
type Check = (request: FastifyRequest) => Promise<Counted>;

/** Callers whose counts one instance keeps; the least recently seen go first beyond it. */
const CALLERS_KEPT = 10_000;
/** Longest a request waits for Redis before it is counted by this instance alone. */
const REDIS_COMMAND_TIMEOUT_MS = 250;
/** The prefix of the counters' keys in Redis. */
const REDIS_KEY_PREFIX = 'platform:rate-limit:';
/** The prefix of the failure counters' keys in Redis (`countFailure`). */
const FAILURES_KEY_PREFIX = 'platform:failures:';
/** The keys of every viewer of one publishable key together (the guard's), counted at `viewersPerSecond`. */
export const VIEWERS_KEY_PREFIX = 'viewers:';

/** Failures counted under a key within its window, and when the window ends. */
export interface FailureCount {
  count: number;
  resetSeconds: number;
}

/**
 * Counts each caller's requests per window with @fastify/rate-limit. With `REDIS_URL`, in Redis
 * (the library's Redis store, through ioredis): every instance counts into the same window, so the
 * limit holds across all of them. Without it, or while Redis cannot be reached, in this instance's
 * memory (the library's bounded LRU of callers): the limit then holds per instance, so behind N
 * instances a caller gets at most N times it. An outage of Redis never fails a request: it is logged
 * once, as a warning, and counting goes back to Redis as soon as Redis answers again. The caller's
 * key is computed by the guard, which knows who is calling and in which project.
 */
@Injectable()
export class RateLimiter implements OnApplicationShutdown {
  private readonly logger = new Logger(RateLimiter.name);
  private local?: Check;
  private shared?: Check;
  private redis?: Redis;
  /** Redis failed and this instance counts alone, until a call to Redis succeeds again. */
  private degraded = false;
  /** Failures this instance counts when there is no Redis, or while it cannot be reached. */
  private readonly localFailures = growingLru<string, { count: number; resetAt: number }>(CALLERS_KEPT);

  constructor(@Inject(rateLimitsConfig.KEY) private readonly config: ConfigType<typeof rateLimitsConfig>) {}

  get enabled(): boolean {
    return this.config.perSecond > 0;
  }

  /**
   * Registers the library on the app's Fastify instance; no route is limited by it but through
   * `count`. Redis is connected whenever `REDIS_URL` is set: failures (`countFailure`) are counted
   * there even with the request limits off.
   */
  async attach(fastify: FastifyInstance): Promise<void> {
    if (this.config.redisUrl) {
      // No offline queue and a short command timeout: while Redis is away a request is counted here at
      // once rather than waiting for a reconnection.
      this.redis = new (ioredis.load().Redis)(this.config.redisUrl, {
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
        connectTimeout: 2_000,
      });
      // Connection errors surface as failed counts (see `count`); ioredis keeps reconnecting by itself.
      this.redis.on('error', () => undefined);
    }
    if (this.enabled) {
      const max = (key: string) =>
        key.startsWith(VIEWERS_KEY_PREFIX) ? this.config.viewersPerSecond : this.config.perSecond;
      this.local = await limiter(fastify, { global: false, cache: CALLERS_KEPT }, max);
      if (this.redis)
        this.shared = await limiter(fastify, { global: false, redis: this.redis, nameSpace: REDIS_KEY_PREFIX }, max);
    }
    await this.redis?.connect().catch((error: Error) => this.degrade(error));
  }

  /** The failures counted under `key` in its current window (none: 0), without counting one. */
  async failures(key: string): Promise<FailureCount> {
    const shared = await this.onRedis(async (redis) => {
      const [count, ttl] = await Promise.all([
        redis.get(FAILURES_KEY_PREFIX + key),
        redis.pttl(FAILURES_KEY_PREFIX + key),
      ]);
      return { count: Number(count ?? 0), resetSeconds: seconds(ttl) };
    });
    if (shared) return shared;
    const local = this.localFailure(key);
    return local
      ? { count: local.count, resetSeconds: seconds(local.resetAt - Date.now()) }
      : { count: 0, resetSeconds: 0 };
  }

  /**
   * Counts one failure under `key`, in a window of `windowMs` that starts with the first: across
   * every instance with Redis, else in this one. The count after it.
   */
  async countFailure(key: string, windowMs: number): Promise<FailureCount> {
    const shared = await this.onRedis(async (redis) => {
      const name = FAILURES_KEY_PREFIX + key;
      const [[, count], , [, ttl]] = (await redis
        .multi()
        .incr(name)
        .pexpire(name, windowMs, 'NX')
        .pttl(name)
        .exec()) as [unknown, number][];
      return { count: Number(count), resetSeconds: seconds(Number(ttl)) };
    });
    if (shared) return shared;
    const now = Date.now();
    const current = this.localFailure(key) ?? { count: 0, resetAt: now + windowMs };
    const next = { count: current.count + 1, resetAt: current.resetAt };
    this.localFailures.set(key, next);
    return { count: next.count, resetSeconds: seconds(next.resetAt - now) };
  }

  /** Takes back one failure counted under `key` (an attempt counted before it was known to succeed). */
  async uncountFailure(key: string): Promise<void> {
    const shared = await this.onRedis(async (redis) => {
      await redis.decr(FAILURES_KEY_PREFIX + key);
      return true;
    });
    if (shared) return;
    const current = this.localFailure(key);
    if (current && current.count > 0)
      this.localFailures.set(key, { count: current.count - 1, resetAt: current.resetAt });
  }

  /** Counts the request against `key`; null when limits are off. */
  async count(request: FastifyRequest, key: string): Promise<RateLimitState | null> {
    if (!this.local) return null;
    (request as FastifyRequest & { rateLimitKey?: string }).rateLimitKey = key;
    const result = (await this.countShared(request)) ?? (await this.local(request));
    if (result.isAllowed) return null;
    return {
      limit: result.max,
      windowSeconds: 1,
      remaining: result.remaining,
      resetSeconds: Math.max(1, result.ttlInSeconds),
      exceeded: result.isExceeded,
    };
  }

  onApplicationShutdown(): void {
    this.redis?.disconnect();
  }

  private localFailure(key: string): { count: number; resetAt: number } | undefined {
    const entry = this.localFailures.get(key);
    if (entry && entry.resetAt <= Date.now()) {
      this.localFailures.delete(key);
      return undefined;
    }
    return entry;
  }

  /** `work` on Redis; undefined when there is none or it failed (then this instance counts). */
  private async onRedis<T>(work: (redis: Redis) => Promise<T>): Promise<T | undefined> {
    if (!this.redis) return undefined;
    try {
      const result = await work(this.redis);
      this.recovered();
      return result;
    } catch (error) {
      this.degrade(error as Error);
      return undefined;
    }
  }

  private recovered(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.logger.log('Redis answers again: rate limits are counted across every instance again');
  }

  /** The count in Redis; undefined when there is no Redis or it failed (then this instance counts). */
  private async countShared(request: FastifyRequest): Promise<Counted | undefined> {
    if (!this.shared) return undefined;
    try {
      const result = await this.shared(request);
      this.recovered();
      return result;
    } catch (error) {
      this.degrade(error as Error);
      return undefined;
    }
  }

  private degrade(error: Error): void {
    if (this.degraded) return;
    this.degraded = true;
    this.logger.warn(
      `Redis cannot be reached (${error.message}): rate limits are counted per instance until it answers again`,
    );
  }
}

/**
 * The library's limiter over one store. Each store is registered in a context of its own: the
 * library decorates the instance it is registered on with `createRateLimit`, once.
 */
async function limiter(
  fastify: FastifyInstance,
  store: FastifyRateLimitOptions,
  perSecond: (key: string) => number,
): Promise<Check> {
  let check: Check | undefined;
  await fastify.register(async (context) => {
    await context.register(fastifyRateLimit, store);
    check = context.createRateLimit({
      max: (_request, key) => perSecond(key),
      timeWindow: 1000,
      keyGenerator: (request) => (request as FastifyRequest & { rateLimitKey?: string }).rateLimitKey ?? request.ip,
    }) as Check;
  });
  if (!check) throw new Error('@fastify/rate-limit did not register');
  return check;
}

/** Whole seconds left of a window of `ms` milliseconds (a Redis PTTL of -1 or -2: none left), at least 1 while any is. */
function seconds(ms: number): number {
  return ms > 0 ? Math.max(1, Math.ceil(ms / 1000)) : 0;
}
