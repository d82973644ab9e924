import { configNamespace } from './namespace';

/** Events and webhook deliveries (docs/events-and-webhooks.md). */
export const eventsConfig = configNamespace('events', (env) => ({
  retentionDays: env.EVENT_RETENTION_DAYS,
  auditRetentionDays: env.AUDIT_RETENTION_DAYS,
  /** How often each instance relays the events that a stopped process, or a failed relay, left in records' outboxes. */
  sweepIntervalMs: 15_000,
  /** How old a change or a pending delete must be before the sweep takes it: its own request publishes it first. */
  sweepGraceMs: 30_000,
  /**
   * How far before the end of the last sweep that finished a sweep reads changed records again: a
   * record's `updatedAt` is its writer's clock, which may be up to 5 minutes behind the sweeper's.
   * Records read again cost one read of their event ids (or none, when this instance recorded them).
   */
  sweepLookBackMs: 5 * 60_000,
  /** How far back the first sweep of a database reads, before the grace: no sweep has finished yet. */
  sweepStartLookBackMs: 24 * 3600_000,
  webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
  retryScheduleSeconds: env.WEBHOOK_RETRY_SCHEDULE.split(',').map((seconds) => Number(seconds.trim())),
  disableAfterHours: env.WEBHOOK_DISABLE_AFTER_HOURS,
  allowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS === 'true',
}));
