import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyRateLimit from '@fastify/rate-limit';
import { rateLimitsConfig } from '../config/rate-limits.config';

/** Where a caller stands against its limit after this request. */
export interface RateLimitState {
  limit: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
  exceeded: boolean;
}

type Check = (request: FastifyRequest) => Promise<{ isAllowed: true } | { isAllowed: false; max: number; remaining: number; ttlInSeconds: number; isExceeded: boolean }>;

/** Callers whose counts one instance keeps; the least recently seen go first beyond it. */
const CALLERS_KEPT = 10_000;

/**
 * Counts each caller's requests per window with @fastify/rate-limit's store (a bounded LRU of
 * callers, in this instance's memory): the limit holds per instance, so behind N instances a caller
 * gets at most N times it. The caller's key is computed by the guard, which knows who is calling
 * and in which project.
 */
@Injectable()
export class RateLimiter {
  private check?: Check;

  constructor(@Inject(rateLimitsConfig.KEY) private readonly config: ConfigType<typeof rateLimitsConfig>) {}

  get enabled(): boolean {
    return this.config.perSecond > 0;
  }

  /** Registers the library on the app's Fastify instance; no route is limited by it but through `count`. */
  async attach(fastify: FastifyInstance): Promise<void> {
    if (!this.enabled) return;
    await fastify.register(fastifyRateLimit, { global: false, cache: CALLERS_KEPT });
    this.check = fastify.createRateLimit({
      max: this.config.perSecond,
      timeWindow: 1000,
      keyGenerator: (request) => (request as FastifyRequest & { rateLimitKey?: string }).rateLimitKey ?? request.ip,
    }) as Check;
  }

  /** Counts the request against `key`; null when limits are off. */
  async count(request: FastifyRequest, key: string): Promise<RateLimitState | null> {
    if (!this.check) return null;
    (request as FastifyRequest & { rateLimitKey?: string }).rateLimitKey = key;
    const result = await this.check(request);
    if (result.isAllowed) return null;
    return { limit: result.max, windowSeconds: 1, remaining: result.remaining, resetSeconds: Math.max(1, result.ttlInSeconds), exceeded: result.isExceeded };
  }
}
