import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyRateLimit, { type FastifyRateLimitOptions } from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import { rateLimitsConfig } from '../config/rate-limits.config';

/** Where a caller stands against its limit after this request. */
export interface RateLimitState {
  limit: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
  exceeded: boolean;
}

type Counted = { isAllowed: true } | { isAllowed: false; max: number; remaining: number; ttlInSeconds: number; isExceeded: boolean };
type Check = (request: FastifyRequest) => Promise<Counted>;

/** Callers whose counts one instance keeps; the least recently seen go first beyond it. */
const CALLERS_KEPT = 10_000;
/** Longest a request waits for Redis before it is counted by this instance alone. */
const REDIS_COMMAND_TIMEOUT_MS = 250;
/** The prefix of the counters' keys in Redis. */
const REDIS_KEY_PREFIX = 'platform:rate-limit:';

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

  constructor(@Inject(rateLimitsConfig.KEY) private readonly config: ConfigType<typeof rateLimitsConfig>) {}

  get enabled(): boolean {
    return this.config.perSecond > 0;
  }

  /** Registers the library on the app's Fastify instance; no route is limited by it but through `count`. */
  async attach(fastify: FastifyInstance): Promise<void> {
    if (!this.enabled) return;
    this.local = await limiter(fastify, { global: false, cache: CALLERS_KEPT }, this.config.perSecond);
    if (!this.config.redisUrl) return;
    // No offline queue and a short command timeout: while Redis is away a request is counted here at
    // once rather than waiting for a reconnection.
    this.redis = new Redis(this.config.redisUrl, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      connectTimeout: 2_000,
    });
    // Connection errors surface as failed counts (see `count`); ioredis keeps reconnecting by itself.
    this.redis.on('error', () => undefined);
    this.shared = await limiter(fastify, { global: false, redis: this.redis, nameSpace: REDIS_KEY_PREFIX }, this.config.perSecond);
    await this.redis.connect().catch((error: Error) => this.degrade(error));
  }

  /** Counts the request against `key`; null when limits are off. */
  async count(request: FastifyRequest, key: string): Promise<RateLimitState | null> {
    if (!this.local) return null;
    (request as FastifyRequest & { rateLimitKey?: string }).rateLimitKey = key;
    const result = (await this.countShared(request)) ?? (await this.local(request));
    if (result.isAllowed) return null;
    return { limit: result.max, windowSeconds: 1, remaining: result.remaining, resetSeconds: Math.max(1, result.ttlInSeconds), exceeded: result.isExceeded };
  }

  onApplicationShutdown(): void {
    this.redis?.disconnect();
  }

  /** The count in Redis; undefined when there is no Redis or it failed (then this instance counts). */
  private async countShared(request: FastifyRequest): Promise<Counted | undefined> {
    if (!this.shared) return undefined;
    try {
      const result = await this.shared(request);
      if (this.degraded) {
        this.degraded = false;
        this.logger.log('Redis answers again: rate limits are counted across every instance again');
      }
      return result;
    } catch (error) {
      this.degrade(error as Error);
      return undefined;
    }
  }

  private degrade(error: Error): void {
    if (this.degraded) return;
    this.degraded = true;
    this.logger.warn(`Redis cannot be reached (${error.message}): rate limits are counted per instance until it answers again`);
  }
}

/**
 * The library's limiter over one store. Each store is registered in a context of its own: the
 * library decorates the instance it is registered on with `createRateLimit`, once.
 */
async function limiter(fastify: FastifyInstance, store: FastifyRateLimitOptions, perSecond: number): Promise<Check> {
  let check: Check | undefined;
  await fastify.register(async (context) => {
    await context.register(fastifyRateLimit, store);
    check = context.createRateLimit({
      max: perSecond,
      timeWindow: 1000,
      keyGenerator: (request) => (request as FastifyRequest & { rateLimitKey?: string }).rateLimitKey ?? request.ip,
    }) as Check;
  });
  if (!check) throw new Error('@fastify/rate-limit did not register');
  return check;
}
