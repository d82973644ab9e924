import type { KeyObject } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { LRUCache } from 'lru-cache';
import { Types } from 'mongoose';
import { performance } from 'node:perf_hooks';
import { FieldEncryption } from '../common/crypto/field-encryption';
import { eventsConfig } from '../config/events.config';
import type { PublishedEvent } from '../events/event-body';
import { EventRelay, type EventSubscriber } from '../events/event-relay';
import { JobRunner, type JobHandle, type JobStep } from '../jobs/job-runner';
import { nextAttemptAt, subscribesTo } from './retry-schedule';
import { signingKey, webhookHeaders } from './transport/signature';
import { WebhookSender } from './transport/webhook-sender';
import type { WebhookDelivery } from './webhook-delivery.schema';
import {
  WebhookDeliveriesRepository,
  type AttemptOutcome,
  type Claim,
  type FreshDelivery,
  type ReadDelivery,
} from './webhook-deliveries.repository';
import { WebhookEndpointsRepository, type EndpointForDelivery } from './webhook-endpoints.repository';
import { secretBinding } from './webhook-secrets';
import { growingLru } from '../common/cache/growing-lru';

/** How often every instance looks for due deliveries, besides being woken by a new one. */
const POLL_MS = 1_000;
/** Due deliveries taken per pass, and sent at once: a slow endpoint holds one of these, not the others. */
const BATCH = 50;
const CONCURRENCY = 8;
/**
 * Fan-outs whose fresh deliveries this instance sends at once (each at most CONCURRENCY at a time);
 * beyond them, a fan-out writes its deliveries due, for the poll of any instance. Without a bound, a stream of events to slow endpoints opened sockets without end; with a
 * low one, a burst of events to fast endpoints waited for the poll.
 */
const FANOUTS_SENDING_AT_ONCE = 64;
/** How long past the timeout an attempt's claim lasts: the claim's own write, and clocks apart. */
const CLAIM_MARGIN_MS = 5_000;
/** Endpoint secrets kept decrypted (as signing keys), and for how long: a decryption per attempt cost more than the attempt's signature. */
const DECRYPTED_SECRETS = 10_000;
const DECRYPTED_SECRET_TTL_MS = 10 * 60_000;
/** How often payloads past the events' retention are dropped. */
const RETENTION_SWEEP_MS = 60 * 60_000;
/** How long one instance holds the payloads' retention at a time, renewed while it runs. */
const RETENTION_LEASE_MS = 60_000;
const DAY_S = 24 * 3600;

/**
 * Sends events to webhook endpoints, off the request path, from every instance. An event's fan-out
 * writes one delivery per matching enabled endpoint, unique by endpoint and event (a relay that runs
 * twice writes none twice). When this instance sends them itself, they are written held for it for a
 * claim's length, and each is claimed just before its own send, so a wait for a free lane eats into
 * no claim. Every attempt (a first one, a retry, one whose fan-out did not send it) is claimed for
 * the timeout and a margin by the insert of its claim and a conditional update of the delivery
 * (WebhookDeliveriesRepository), by this instance's lanes or by the poll (a job of the runner) of
 * any instance. An attempt is sent only while the whole timeout fits in what is left of its claim,
 * on its claimer's own clock, so a claim never ends before its send, and one claimed too late is
 * given back unsent. A claim left by a dead instance is taken over once the instance taking it over
 * has watched it for a whole claim's length on its own clock (`ClaimWatch`): its attempt is recorded
 * as abandoned and the next one is made. At least once: a receiver deduplicates on `webhook-id`.
 */
@Injectable()
export class WebhookDispatcher implements EventSubscriber, OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private readonly sender: WebhookSender;
  private pollJob?: JobHandle;
  private retentionJob?: JobHandle;
  private stopClaimExpiry: () => void = () => undefined;
  private stopped = false;
  /** Fan-outs whose claimed deliveries are still being sent (shutdown waits for them). */
  private sending = 0;
  /** How long an attempt is claimed, and a fresh delivery held for the instance that wrote it. */
  private readonly claimMs: number;
  /**
   * Secrets as decrypted, made signing keys, by endpoint and stored value: a stored value (its IV is
   * random) is one secret of one endpoint, so a rolled or replaced secret is a new key. The clock is
   * read at each lookup, without lru-cache's 1 ms timer.
   */
  private readonly decrypted = growingLru<string, KeyObject>(DECRYPTED_SECRETS, {
    ttl: DECRYPTED_SECRET_TTL_MS,
    ttlResolution: 0,
  });
  /** Claims of other senders this instance saw, for taking over those that lapsed. */
  private readonly watch: ClaimWatch;

  constructor(
    private readonly relay: EventRelay,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly encryption: FieldEncryption,
    @Inject(eventsConfig.KEY) private readonly config: ConfigType<typeof eventsConfig>,
    private readonly jobs: JobRunner,
  ) {
    this.sender = new WebhookSender({ timeoutMs: config.webhookTimeoutMs, allowPrivate: config.allowPrivateUrls });
    this.claimMs = config.webhookTimeoutMs + CLAIM_MARGIN_MS;
    this.watch = new ClaimWatch(this.claimMs);
  }

  onModuleInit(): void {
    this.pollJob = this.jobs.register({ name: 'webhooks.poll', everyMs: POLL_MS, run: (step) => this.pass(step) });
    this.retentionJob = this.jobs.register({
      name: 'webhooks.payload-retention',
      everyMs: RETENTION_SWEEP_MS,
      lease: { holdMs: RETENTION_LEASE_MS },
      run: () => this.dropExpiredPayloads(),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    this.relay.subscribe(this);
    this.stopClaimExpiry = await this.deliveries.expireClaims(this.config.retentionDays * DAY_S, this.logger);
  }

  /** Past the events' retention, deliveries keep their outcome and lose the event they carried. */
  dropExpiredPayloads(now = new Date()): Promise<number> {
    return this.deliveries.dropPayloadsBefore(new Date(now.getTime() - this.config.retentionDays * DAY_S * 1000));
  }

  /**
   * Waits, for as long as a claim lasts at most, for the attempts under way (no new one starts once
   * stopped), then closes the connections: an attempt cut short is sent again by another instance
   * once its claim lapses.
   */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.stopClaimExpiry();
    const deadline = Date.now() + this.claimMs;
    await Promise.race([
      Promise.all([this.pollJob?.stop(), this.retentionJob?.stop()]),
      new Promise((done) => setTimeout(done, this.claimMs)),
    ]);
    while (this.sending > 0 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 20));
    this.sender.close();
  }

  /**
   * The fan-out of a batch of events: one read of each project's enabled endpoints (remembered for a
   * second), and one write of every delivery. Those due at once are written claimed for their first
   * attempt and sent from here, off the request, at most CONCURRENCY at a time; past
   * FANOUTS_SENDING_AT_ONCE fan-outs (or with a first wait) they are written due, for the poll.
   */
  async eventsRecorded(events: readonly PublishedEvent[]): Promise<void> {
    const byProject = new Map<string, PublishedEvent[]>();
    for (const event of events) byProject.set(event.projectId, [...(byProject.get(event.projectId) ?? []), event]);
    const fresh: { delivery: FreshDelivery; endpoint: EndpointForDelivery }[] = [];
    const firstWait = this.config.retryScheduleSeconds[0] ?? 0;
    const firstAttemptAt = new Date(Date.now() + firstWait * 1000);
    for (const [project, projectEvents] of byProject) {
      const projectId = new Types.ObjectId(project);
      const endpoints = await this.endpoints.enabledOf(projectId);
      for (const event of projectEvents) {
        for (const endpoint of endpoints.filter((candidate) => subscribesTo(candidate.enabledEvents, event.type))) {
          const delivery = {
            _id: new Types.ObjectId(),
            projectId,
            endpointId: endpoint._id,
            eventId: event.id,
            eventType: event.type,
            payload: event.body,
            firstAttemptAt,
          };
          fresh.push({ delivery, endpoint });
        }
      }
    }
    if (fresh.length === 0) return;
    const deliveries = fresh.map(({ delivery }) => delivery);
    if (firstWait > 0 || this.stopped || this.sending >= FANOUTS_SENDING_AT_ONCE) {
      await this.deliveries.insertFresh(deliveries);
      return;
    }
    // Held for this instance's lanes until a claim's length from now; each is claimed just before
    // its own send, so a lane's wait eats into no claim. Another instance's poll that finds one due
    // first (this one stopped, or its clock is behind) claims it the same way: one claim wins.
    this.sending += 1;
    try {
      await this.deliveries.insertFresh(deliveries, new Date(Date.now() + this.claimMs));
    } catch (error) {
      this.sending -= 1;
      throw error;
    }
    void inParallel(fresh, CONCURRENCY, ({ delivery, endpoint }) => this.sendFresh(delivery, endpoint)).finally(
      () => (this.sending -= 1),
    );
  }

  /** A delivery of the event to one endpoint, due by the schedule's first wait; null when it exists already. */
  async schedule(
    projectId: Types.ObjectId,
    endpointId: Types.ObjectId,
    event: Pick<PublishedEvent, 'id' | 'type' | 'body'>,
  ): Promise<WebhookDelivery | null> {
    const firstAttemptAt = nextAttemptAt(this.config.retryScheduleSeconds, 0, new Date()) ?? new Date();
    return this.deliveries.insertOnce({
      projectId,
      endpointId,
      eventId: event.id,
      eventType: event.type,
      payload: event.body,
      firstAttemptAt,
    });
  }

  /** Starts a pass over the due deliveries now; woken during one, the poll runs another right after. */
  wake(): void {
    if (this.stopped) return;
    this.pollJob?.kick();
  }

  /** A pass over a batch of the due deliveries. */
  private async pass(step: Pick<JobStep, 'stopping'>): Promise<void> {
    const due = await this.deliveries.due(new Date(), BATCH);
    await inParallel(due, CONCURRENCY, (delivery) =>
      this.stopped || step.stopping() ? Promise.resolve() : this.attemptDue(delivery),
    );
  }

  /** A due delivery, read again whole: another instance may have made its attempt meanwhile. */
  private async attemptDue(due: WebhookDelivery): Promise<void> {
    try {
      const delivery = await this.deliveries.forAttempt(due.projectId, due._id);
      if (
        !delivery ||
        delivery.status !== 'pending' ||
        !delivery.nextAttemptAt ||
        new Date(delivery.nextAttemptAt) > new Date()
      )
        return;
      const endpoint = await this.endpoints.forDelivery(delivery.projectId, delivery.endpointId);
      if (!endpoint || endpoint.status !== 'enabled') {
        await this.deliveries.failUnsent(delivery, endpoint ? 'The endpoint is disabled' : 'The endpoint was deleted');
        return;
      }
      await this.claimAndSend(delivery, delivery, endpoint);
    } catch (error) {
      // An attempt claimed stays claimed until its claim lapses; then it is taken over.
      this.logger.warn(`Webhook delivery ${String(due._id)} failed to run: ${(error as Error).message}`);
    }
  }

  /** A fresh delivery held for this instance: its first attempt claimed now, and sent with the endpoint as the fan-out read it. */
  private async sendFresh(delivery: FreshDelivery, endpoint: EndpointForDelivery): Promise<void> {
    if (this.stopped) return;
    try {
      await this.claimAndSend(
        {
          _id: delivery._id,
          projectId: delivery.projectId,
          endpointId: delivery.endpointId,
          attempt: 0,
          claimedUntil: null,
        },
        delivery,
        endpoint,
      );
    } catch (error) {
      this.logger.warn(`Webhook delivery ${String(delivery._id)} failed to run: ${(error as Error).message}`);
    }
  }

  /**
   * Claims the delivery's next attempt, for the timeout and a margin, and sends it when this instance
   * won the claim. An attempt still claimed by another sender is taken over only once this instance
   * has itself watched that claim stand unchanged for a whole claim's length (`ClaimWatch`): no
   * other instance's clock is compared with this one's.
   */
  private async claimAndSend(
    read: ReadDelivery,
    delivery: Pick<WebhookDelivery, '_id' | 'projectId' | 'eventId' | 'payload'>,
    endpoint: EndpointForDelivery,
  ): Promise<void> {
    const claim = await this.deliveries.claim(read, new Date(Date.now() + this.claimMs), new Date(), (key) =>
      this.watch.lapsed(key),
    );
    if (claim) await this.send(delivery, endpoint, claim);
  }

  /**
   * Sends the claimed attempt if the whole timeout fits in what is left of its claim, and records how
   * it went: succeeded, due again by the schedule, or failed.
   */
  private async send(
    delivery: Pick<WebhookDelivery, '_id' | 'projectId' | 'eventId' | 'payload'>,
    endpoint: EndpointForDelivery,
    claim: Claim,
  ): Promise<void> {
    const now = new Date();
    // Less than the timeout is left of the claim (its write, or the wait for a free lane, took the
    // rest): sending now could outlast it.
    if (now.getTime() + this.config.webhookTimeoutMs > claim.claimedUntil.getTime())
      return this.deliveries.release(delivery, claim);
    const headers = webhookHeaders(
      this.secretsOf(endpoint, now),
      delivery.eventId,
      Math.floor(now.getTime() / 1000),
      delivery.payload,
    );
    const outcome: AttemptOutcome = await this.sender.send(endpoint.url, delivery.payload, headers);
    if (outcome.ok) {
      await this.deliveries.recordAttempt(delivery, claim, outcome, { status: 'succeeded', nextAttemptAt: null });
      if (endpoint.failingSince) await this.endpoints.markSucceeding(delivery.projectId, endpoint._id);
      return;
    }
    const next = nextAttemptAt(this.config.retryScheduleSeconds, claim.attempt, new Date());
    await this.deliveries.recordAttempt(delivery, claim, outcome, {
      status: next ? 'pending' : 'failed',
      nextAttemptAt: next,
    });
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
  private secretsOf(endpoint: EndpointForDelivery, now: Date): KeyObject[] {
    return endpoint.secrets
      .filter((secret) => secret.expiresAt === null || new Date(secret.expiresAt) > now)
      .map((secret) => this.decrypt(String(endpoint._id), secret.value));
  }

  private decrypt(endpointId: string, stored: string): KeyObject {
    const key = `${endpointId} ${stored}`;
    let secret = this.decrypted.get(key);
    if (secret === undefined) {
      secret = signingKey(this.encryption.decrypt(stored, secretBinding(endpointId)));
      this.decrypted.set(key, secret);
    }
    return secret;
  }
}

/** Claims watched at once: beyond them the oldest sighting is forgotten and its wait starts again. */
const CLAIMS_WATCHED = 10_000;

/**
 * When this instance first saw each claim of another sender, on its own monotonic clock. A claim
 * lasts at most `claimMs` on its sender's clock from when it was written, which is before it was
 * first seen here; so once `claimMs` passed here since then, it has ended whatever either wall clock
 * says (clocks run at the same rate; their readings may be seconds apart).
 */
class ClaimWatch {
  private readonly firstSeen: LRUCache<string, number>;
  constructor(private readonly claimMs: number) {
    this.firstSeen = growingLru<string, number>(CLAIMS_WATCHED);
  }

  /** Whether the claim `key` (its delivery, attempt and claimer) has lapsed, as seen from here. */
  lapsed(key: string): boolean {
    const now = performance.now();
    const seen = this.firstSeen.get(key);
    if (seen === undefined) {
      this.firstSeen.set(key, now);
      return false;
    }
    if (now - seen < this.claimMs) return false;
    this.firstSeen.delete(key);
    return true;
  }
}

/** Runs `work` over the items, at most `limit` at a time. */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(lanes);
}
