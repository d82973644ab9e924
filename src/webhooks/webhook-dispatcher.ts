import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { Types } from 'mongoose';
import { FieldEncryption } from '../common/crypto/field-encryption';
import { eventsConfig } from '../config/events.config';
import type { PublishedEvent } from '../events/event-body';
import { EventRelay, type EventSubscriber } from '../events/event-relay';
import { Leases } from '../leases/leases.service';
import { nextAttemptAt, subscribesTo } from './retry-schedule';
import { webhookHeaders } from './transport/signature';
import { WebhookSender } from './transport/webhook-sender';
import type { WebhookDelivery } from './webhook-delivery.schema';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository, type EndpointForDelivery } from './webhook-endpoints.repository';
import { secretBinding } from './webhook-secrets';

/** How often every instance looks for due deliveries, besides being woken by a new one. */
const POLL_MS = 1_000;
/** Due deliveries taken per pass, and sent at once: a slow endpoint holds one of these, not the others. */
const BATCH = 50;
const CONCURRENCY = 8;

/**
 * Sends events to webhook endpoints, off the request path, from every instance. An event's fan-out
 * writes one delivery per matching enabled endpoint (unique by endpoint and event, so a relay that
 * runs twice writes none twice). Each attempt runs under a lease on its delivery, so no two instances
 * send it at once; a lease left by a dead instance expires after the timeout and the attempt is
 * taken over. At least once: a receiver deduplicates on `webhook-id`.
 */
@Injectable()
export class WebhookDispatcher implements EventSubscriber, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private readonly sender: WebhookSender;
  private timer?: NodeJS.Timeout;
  private passing?: Promise<void>;
  private wokenDuringPass = false;
  private stopped = false;

  constructor(
    private readonly relay: EventRelay,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly leases: Leases,
    private readonly encryption: FieldEncryption,
    @Inject(eventsConfig.KEY) private readonly config: ConfigType<typeof eventsConfig>,
  ) {
    this.sender = new WebhookSender({ timeoutMs: config.webhookTimeoutMs, allowPrivate: config.allowPrivateUrls });
  }

  onApplicationBootstrap(): void {
    this.relay.subscribe(this);
    this.timer = setInterval(() => this.wake(), POLL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.passing;
  }

  /** One read of each project's enabled endpoints per batch; a delivery per matching endpoint and event. */
  async eventsRecorded(events: readonly PublishedEvent[]): Promise<void> {
    const byProject = new Map<string, PublishedEvent[]>();
    for (const event of events) byProject.set(event.projectId, [...(byProject.get(event.projectId) ?? []), event]);
    let written = false;
    for (const [project, projectEvents] of byProject) {
      const projectId = new Types.ObjectId(project);
      const endpoints = await this.endpoints.enabledOf(projectId);
      for (const event of projectEvents) {
        for (const endpoint of endpoints.filter((candidate) => subscribesTo(candidate.enabledEvents, event.type))) {
          written = (await this.schedule(projectId, endpoint._id, event)) !== null || written;
        }
      }
    }
    if (written) this.wake();
  }

  /** A delivery of the event to one endpoint, due by the schedule's first wait; null when it exists already. */
  async schedule(projectId: Types.ObjectId, endpointId: Types.ObjectId, event: Pick<PublishedEvent, 'id' | 'type' | 'body'>): Promise<WebhookDelivery | null> {
    const firstAttemptAt = nextAttemptAt(this.config.retryScheduleSeconds, 0, new Date()) ?? new Date();
    return this.deliveries.insertOnce({ projectId, endpointId, eventId: event.id, eventType: event.type, payload: event.body, firstAttemptAt });
  }

  /** Starts a pass over the due deliveries; woken during one, it runs another right after. */
  wake(): void {
    if (this.stopped) return;
    if (this.passing) {
      this.wokenDuringPass = true;
      return;
    }
    this.passing = this.passes()
      .catch((error: Error) => this.logger.warn(`Webhook delivery pass failed: ${error.message}`))
      .finally(() => (this.passing = undefined));
  }

  private async passes(): Promise<void> {
    do {
      this.wokenDuringPass = false;
      const due = await this.deliveries.due(new Date(), BATCH);
      await inParallel(due, CONCURRENCY, (delivery) => this.attemptUnderLease(delivery));
    } while (this.wokenDuringPass && !this.stopped);
  }

  private async attemptUnderLease(delivery: WebhookDelivery): Promise<void> {
    try {
      await this.leases.tryWithLease(`webhook-delivery:${String(delivery._id)}`, this.config.webhookTimeoutMs + 5_000, () =>
        this.attempt(delivery.projectId, delivery._id),
      );
    } catch (error) {
      this.logger.warn(`Webhook delivery ${String(delivery._id)} failed to run: ${(error as Error).message}`);
    }
  }

  /** One attempt, read again under the lease: another instance may have made it meanwhile. */
  private async attempt(projectId: Types.ObjectId, id: Types.ObjectId): Promise<void> {
    const delivery = await this.deliveries.forAttempt(projectId, id);
    const now = new Date();
    if (!delivery || delivery.status !== 'pending' || !delivery.nextAttemptAt || new Date(delivery.nextAttemptAt) > now) return;
    const endpoint = await this.endpoints.forDelivery(projectId, delivery.endpointId);
    if (!endpoint || endpoint.status !== 'enabled') {
      const error = endpoint ? 'The endpoint is disabled' : 'The endpoint was deleted';
      await this.deliveries.recordAttempt(projectId, id, { ...unsent(delivery), status: 'failed', nextAttemptAt: null, error });
      return;
    }
    const headers = webhookHeaders(this.secretsOf(endpoint, now), delivery.eventId, Math.floor(now.getTime() / 1000), delivery.payload);
    const outcome = await this.sender.send(endpoint.url, delivery.payload, headers);
    const attempt = delivery.attempt + 1;
    const result = { attempt, responseStatus: outcome.responseStatus, responseBody: outcome.responseBody, durationMs: outcome.durationMs, error: outcome.error };
    if (outcome.ok) {
      await this.deliveries.recordAttempt(projectId, id, { ...result, status: 'succeeded', nextAttemptAt: null });
      if (endpoint.failingSince) await this.endpoints.markSucceeding(projectId, endpoint._id);
      return;
    }
    const next = nextAttemptAt(this.config.retryScheduleSeconds, attempt, new Date());
    await this.deliveries.recordAttempt(projectId, id, { ...result, status: next ? 'pending' : 'failed', nextAttemptAt: next });
    await this.noteFailure(endpoint, now);
  }

  /** Every delivery of an endpoint failing for the configured hours disables it, with the reason. */
  private async noteFailure(endpoint: EndpointForDelivery, now: Date): Promise<void> {
    if (!endpoint.failingSince) return this.endpoints.markFailing(endpoint.projectId, endpoint._id, now);
    const failingFor = now.getTime() - new Date(endpoint.failingSince).getTime();
    if (failingFor < this.config.disableAfterHours * 3_600_000) return;
    const reason = `Every delivery failed for ${this.config.disableAfterHours} hours (since ${new Date(endpoint.failingSince).toISOString()})`;
    await this.endpoints.disable(endpoint.projectId, endpoint._id, reason);
    this.logger.warn(`Webhook endpoint ${String(endpoint._id)} disabled: ${reason}`);
  }

  /** The secrets that sign now: the current one, and a rolled one until its grace ends. */
  private secretsOf(endpoint: EndpointForDelivery, now: Date): string[] {
    return endpoint.secrets
      .filter((secret) => secret.expiresAt === null || new Date(secret.expiresAt) > now)
      .map((secret) => this.encryption.decrypt(secret.value, secretBinding(String(endpoint._id))));
  }
}

function unsent(delivery: WebhookDelivery): Pick<WebhookDelivery, 'attempt' | 'responseStatus' | 'responseBody' | 'durationMs'> {
  return { attempt: delivery.attempt, responseStatus: delivery.responseStatus, responseBody: delivery.responseBody, durationMs: delivery.durationMs };
}

/** Runs `work` over the items, at most `limit` at a time. */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(lanes);
}
