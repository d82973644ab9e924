import { configNamespace } from './namespace';

/** Events and webhook deliveries (docs/events-and-webhooks.md). */
export const eventsConfig = configNamespace('events', (env) => ({
  retentionDays: env.EVENT_RETENTION_DAYS,
  auditRetentionDays: env.AUDIT_RETENTION_DAYS,
  /** How often each instance relays events a stopped process left in their records. */
  sweepIntervalMs: 15_000,
  /** How old an outbox entry or an unsettled delete must be before the sweep takes it: its own request relays it first. */
  sweepGraceMs: 30_000,
  webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
  retryScheduleSeconds: env.WEBHOOK_RETRY_SCHEDULE.split(',').map((seconds) => Number(seconds.trim())),
  disableAfterHours: env.WEBHOOK_DISABLE_AFTER_HOURS,
  allowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS === 'true',
}));

export type EventsConfig = ReturnType<typeof eventsConfig.build>;
