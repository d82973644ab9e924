import { HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { authConfig } from '../config/auth.config';

interface Window {
  failures: number;
  resetAt: number;
}

/** Bounded so a flood of distinct clients cannot grow memory without limit. */
const MAX_TRACKED_CLIENTS = 10_000;

/**
 * Counts failed logins per client and answers 429 once a client passes the limit within the window.
 * Successful logins are not counted, so a dashboard that logs in often is never throttled.
 * Kept in process memory: with several replicas each one counts on its own.
 */
@Injectable()
export class LoginFailuresService {
  private readonly windows = new Map<string, Window>();

  constructor(@Inject(authConfig.KEY) private readonly config: ConfigType<typeof authConfig>) {}

  assertNotBlocked(client: string, now = Date.now()): void {
    const window = this.current(client, now);
    if (window && window.failures >= this.config.loginMaxFailures) {
      const retryAfter = Math.ceil((window.resetAt - now) / 1000);
      throw new HttpException(
        `Too many failed login attempts. Try again in ${retryAfter} seconds`,
        HttpStatus.TOO_MANY_REQUESTS,
      );
    }
  }

  recordFailure(client: string, now = Date.now()): void {
    const window = this.current(client, now);
    if (window) {
      window.failures += 1;
      return;
    }
    if (this.windows.size >= MAX_TRACKED_CLIENTS) {
      this.windows.delete(this.windows.keys().next().value as string);
    }
    this.windows.set(client, { failures: 1, resetAt: now + this.config.loginFailureWindowSeconds * 1000 });
  }

  reset(client: string): void {
    this.windows.delete(client);
  }

  private current(client: string, now: number): Window | undefined {
    const window = this.windows.get(client);
    if (window && window.resetAt <= now) {
      this.windows.delete(client);
      return undefined;
    }
    return window;
  }
}
