import { configNamespace } from './namespace';

/** Events and webhook deliveries (docs/events-and-webhooks.md). */
export const eventsConfig = configNamespace('events', (env) => ({
  retentionDays: env.EVENT_RETENTION_DAYS,
  auditRetentionDays: env.AUDIT_RETENTION_DAYS,
  /** How often each instance relays the events that a stopped process, or a failed relay, left in records' outboxes. */
  sweepIntervalMs: 15_000,
  /** How old a change or a pending delete must be before the sweep takes it: its own request publishes it first. */
  sweepGraceMs: 30_000,
  /** How far back, before the grace, a sweep reads changed records at least (several sweeps cover each change); further, to the end of the last sweep that finished. */
  sweepLookBackMs: 5 * 60_000,
  /** The same, for an instance's first sweep: it covers changes left while every instance was stopped. */
  sweepStartLookBackMs: 24 * 3600_000,
  webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
  retryScheduleSeconds: env.WEBHOOK_RETRY_SCHEDULE.split(',').map((seconds) => Number(seconds.trim())),
  disableAfterHours: env.WEBHOOK_DISABLE_AFTER_HOURS,
  allowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS === 'true',
}));
