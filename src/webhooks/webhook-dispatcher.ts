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
import { WebhookDeliveriesRepository, type NewDelivery } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository, type EndpointForDelivery } from './webhook-endpoints.repository';
import { secretBinding } from './webhook-secrets';

/** How often every instance looks for due deliveries, besides being woken by a new one. */
const POLL_MS = 1_000;
/** Due deliveries taken per pass, and sent at once: a slow endpoint holds one of these, not the others. */
const BATCH = 50;
const CONCURRENCY = 8;
/**
 * Fan-outs whose fresh deliveries this instance sends at once (each at most CONCURRENCY at a time);
 * beyond them, a fan-out only writes its deliveries, claimed, and the poll sends them when the claim
 * lapses, at a higher cost (a lease each). Without a bound, a stream of events to slow endpoints
 * opened sockets without end; with a low one, a burst of events to fast endpoints went the slow way.
 */
const FANOUTS_SENDING_AT_ONCE = 64;

/**
 * Sends events to webhook endpoints, off the request path, from every instance. An event's fan-out
 * writes one delivery per matching enabled endpoint (unique by endpoint and event, so a relay that
 * runs twice writes none twice), claimed by the writing instance, which sends the first attempt at
 * once. Every later attempt (a retry, or a first attempt whose claimer died) is found by the poll of
 * any instance and runs under a lease on its delivery, so no two instances send it at once; a claim
 * or lease left by a dead instance lapses after the timeout and the attempt is taken over. At least
 * once: a receiver deduplicates on `webhook-id`.
 */
@Injectable()
export class WebhookDispatcher implements EventSubscriber, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private readonly sender: WebhookSender;
  private timer?: NodeJS.Timeout;
  private passing?: Promise<void>;
  private wokenDuringPass = false;
  private stopped = false;
  /** Fan-outs whose claimed deliveries are still being sent (shutdown waits for them). */
  private sending = 0;
  /** How long a fresh delivery stays claimed by the instance that wrote it: its attempt, and a margin. */
  private readonly claimMs: number;

  constructor(
    private readonly relay: EventRelay,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly leases: Leases,
    private readonly encryption: FieldEncryption,
    @Inject(eventsConfig.KEY) private readonly config: ConfigType<typeof eventsConfig>,
  ) {
    this.sender = new WebhookSender({ timeoutMs: config.webhookTimeoutMs, allowPrivate: config.allowPrivateUrls });
    this.claimMs = config.webhookTimeoutMs + 5_000;
  }

  onApplicationBootstrap(): void {
    this.relay.subscribe(this);
    this.timer = setInterval(() => this.wake(), POLL_MS);
    this.timer.unref();
  }

  /**
   * Waits, for as long as a claim lasts at most, for the attempts under way (no new one starts once
   * stopped), then closes the connections: an attempt cut short is sent again by another instance
   * once its claim or lease lapses.
   */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    const deadline = Date.now() + this.claimMs;
    while ((this.passing || this.sending > 0) && Date.now() < deadline) await new Promise((done) => setTimeout(done, 20));
    this.sender.close();
  }

  /**
   * The fan-out of a batch of events: one read of each project's enabled endpoints, and one write of
   * every delivery. Deliveries due at once are claimed in that write by this instance (due for the
   * others only once the claim lapses, as a lease would) and sent from here, off the request; the
   * others wait for the poll.
   */
  async eventsRecorded(events: readonly PublishedEvent[]): Promise<void> {
    const byProject = new Map<string, PublishedEvent[]>();
    for (const event of events) byProject.set(event.projectId, [...(byProject.get(event.projectId) ?? []), event]);
    const now = Date.now();
    const firstWait = this.config.retryScheduleSeconds[0] ?? 0;
    const claimedUntil = new Date(now + this.claimMs);
    const fresh: { delivery: NewDelivery & { _id: Types.ObjectId; nextAttemptAt: Date }; endpoint: EndpointForDelivery }[] = [];
    for (const [project, projectEvents] of byProject) {
      const projectId = new Types.ObjectId(project);
      const endpoints = await this.endpoints.enabledOf(projectId);
      for (const event of projectEvents) {
        for (const endpoint of endpoints.filter((candidate) => subscribesTo(candidate.enabledEvents, event.type))) {
          const firstAttemptAt = new Date(now + firstWait * 1000);
          const delivery = { _id: new Types.ObjectId(), projectId, endpointId: endpoint._id, eventId: event.id, eventType: event.type, payload: event.body, firstAttemptAt };
          fresh.push({ delivery: { ...delivery, nextAttemptAt: firstWait === 0 ? claimedUntil : firstAttemptAt }, endpoint });
        }
      }
    }
    if (fresh.length === 0) return;
    const allNew = await this.deliveries.insertFresh(fresh.map((entry) => entry.delivery));
    if (!allNew || firstWait > 0 || this.stopped || this.sending >= FANOUTS_SENDING_AT_ONCE) return;
    this.sending += 1;
    void inParallel(fresh, CONCURRENCY, ({ delivery, endpoint }) => this.sendClaimed(delivery, endpoint)).finally(() => (this.sending -= 1));
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
      await inParallel(due, CONCURRENCY, (delivery) => (this.stopped ? Promise.resolve() : this.attemptUnderLease(delivery)));
    } while (this.wokenDuringPass && !this.stopped);
  }

  private async attemptUnderLease(delivery: WebhookDelivery): Promise<void> {
    try {
      await this.leases.tryWithLease(`webhook-delivery:${String(delivery._id)}`, this.claimMs, () =>
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
    await this.deliver(delivery, endpoint);
  }

  /** A fresh delivery this instance claimed in the fan-out: sent with the endpoint as the fan-out read it. */
  private async sendClaimed(delivery: Pick<WebhookDelivery, '_id' | 'projectId' | 'eventId' | 'payload'>, endpoint: EndpointForDelivery): Promise<void> {
    if (this.stopped) return;
    try {
      await this.deliver({ ...delivery, attempt: 0 }, endpoint);
    } catch (error) {
      // The claim lapses and the poll sends it.
      this.logger.warn(`Webhook delivery ${String(delivery._id)} failed to run: ${(error as Error).message}`);
    }
  }

  /** Sends one attempt and records how it went: succeeded, due again by the schedule, or failed. */
  private async deliver(delivery: Pick<WebhookDelivery, '_id' | 'projectId' | 'eventId' | 'payload' | 'attempt'>, endpoint: EndpointForDelivery): Promise<void> {
    const { projectId, _id: id } = delivery;
    const now = new Date();
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
