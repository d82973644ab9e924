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
  claimKey,
  newClaimToken,
  type Claim,
  type DueDelivery,
  type FreshDelivery,
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

/** A fan-out's delivery and the endpoint as the fan-out read it. */
type Fresh = { delivery: FreshDelivery; endpoint: EndpointForDelivery };

/**
 * Sends events to webhook endpoints, off the request path, from every instance. An event's fan-out
 * writes one delivery per matching enabled endpoint, unique by endpoint and event (a relay that runs
 * twice writes none twice), in one command: those that get a free lane of this instance are written
 * already claimed for their first attempt and sent at once (the insert is the claim, made just
 * before the send), the others due, for those lanes as they free up and for every instance's poll (a
 * job of the runner). Every other attempt (a retry, one whose fan-out did not send it) is claimed for
 * the timeout and a margin by one update of the delivery guarded on its attempt number and claim
 * token (WebhookDeliveriesRepository), and its outcome is one update guarded the same way. An
 * attempt is sent only while the whole timeout fits in what is left of its claim, on its claimer's
 * own clock, so a claim never ends before its send, and one claimed too late is given back unsent. A
 * claim left by a dead instance is taken over once the instance taking it over has watched it for a
 * whole claim's length on its own clock (`ClaimWatch`): its attempt is recorded as abandoned and the
 * next one is made. At least once: a receiver deduplicates on `webhook-id`.
 */
@Injectable()
export class WebhookDispatcher implements EventSubscriber, OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private readonly sender: WebhookSender;
  private pollJob?: JobHandle;
  private retentionJob?: JobHandle;
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

  onApplicationBootstrap(): void {
    this.relay.subscribe(this);
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
   * second), and one write of every delivery. When they are due at once and this instance sends them
   * (fewer than FANOUTS_SENDING_AT_ONCE fan-outs under way), the first CONCURRENCY are written
   * claimed for their first attempt and sent from here, off the request; the rest are written due and
   * sent by those lanes as they free up, unless another instance's poll claims them first. Otherwise
   * all are written due, for the poll, which is woken when they are due now.
   */
  async eventsRecorded(events: readonly PublishedEvent[]): Promise<void> {
    const byProject = new Map<string, PublishedEvent[]>();
    for (const event of events) byProject.set(event.projectId, [...(byProject.get(event.projectId) ?? []), event]);
    const fresh: Fresh[] = [];
    const firstWait = this.config.retryScheduleSeconds[0] ?? 0;
    const now = new Date();
    const firstAttemptAt = new Date(now.getTime() + firstWait * 1000);
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
    if (firstWait > 0 || this.stopped || this.sending >= FANOUTS_SENDING_AT_ONCE) {
      await this.deliveries.insertFanOut(fresh);
      if (firstWait === 0) this.wake();
      return;
    }
    // The first attempts of as many as this fan-out has lanes, claimed by their insert: each is sent
    // right after it, so no wait eats into its claim. The rest wait for a lane, claimed one at a time
    // just before their own send, by whichever instance gets there first.
    const claimedUntil = new Date(now.getTime() + this.claimMs);
    const claimed = fresh.slice(0, CONCURRENCY).map((item) => ({
      ...item,
      claim: { attempt: 1, token: newClaimToken(), claimedAt: now, claimedUntil },
    }));
    const waiting = fresh.slice(CONCURRENCY);
    this.sending += 1;
    let notWritten: Set<string>;
    try {
      notWritten = await this.deliveries.insertFanOut([...claimed, ...waiting]);
    } catch (error) {
      this.sending -= 1;
      throw error;
    }
    // A delivery there already (the event fanned out before) is not this fan-out's to send.
    const written = (item: Fresh) => !notWritten.has(String(item.delivery._id));
    void this.sendFanOut(claimed.filter(written), waiting.filter(written)).finally(() => (this.sending -= 1));
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

  /**
   * A due delivery's next attempt: claimed by one guarded update that also reads it whole (another
   * instance may have made its attempt since the poll read it: then nothing matches), then sent. An
   * attempt still claimed by another sender is taken over only once this instance has itself watched
   * that claim stand unchanged for a whole claim's length (`ClaimWatch`): no other instance's clock is
   * compared with this one's.
   */
  private async attemptDue(due: DueDelivery): Promise<void> {
    try {
      // Another sender's claim, not yet watched for a whole claim's length: left alone, unread.
      if (due.claimedUntil && !this.watch.lapsed(claimKey(due))) return;
      const watched = () => true;
      const endpoint = await this.endpoints.forDelivery(due.projectId, due.endpointId);
      if (!endpoint || endpoint.status !== 'enabled') {
        const reason = endpoint ? 'The endpoint is disabled' : 'The endpoint was deleted';
        await this.deliveries.failUnsent(due, reason, watched);
        return;
      }
      const claimed = await this.deliveries.claimAndRead(due, new Date(Date.now() + this.claimMs), new Date(), watched);
      if (claimed) await this.send(claimed.delivery, endpoint, claimed.claim);
    } catch (error) {
      // An attempt claimed stays claimed until its claim lapses; then it is taken over.
      this.logger.warn(`Webhook delivery ${String(due._id)} failed to run: ${(error as Error).message}`);
    }
  }

  /**
   * A fan-out's deliveries sent from here, at most CONCURRENCY at a time: each lane sends the one it
   * inserted claimed, then claims and sends those waiting, one at a time, until none is left or the
   * instance stops.
   */
  private async sendFanOut(claimed: (Fresh & { claim: Claim })[], waiting: Fresh[]): Promise<void> {
    const lane = async ({ delivery, endpoint, claim }: Fresh & { claim: Claim }) => {
      await this.guarded(delivery, () => this.send(delivery, endpoint, claim));
      for (let next = waiting.shift(); next && !this.stopped; next = waiting.shift()) {
        const { delivery: waitingDelivery, endpoint: waitingEndpoint } = next;
        await this.guarded(waitingDelivery, async () => {
          const read = { ...waitingDelivery, attempt: 0, claimToken: null, claimedUntil: null };
          const won = await this.deliveries.claim(read, new Date(Date.now() + this.claimMs), new Date(), () => false);
          if (won) await this.send(waitingDelivery, waitingEndpoint, won);
        });
      }
    };
    await Promise.all(claimed.map(lane));
  }

  /** Runs one delivery's attempt, logging its failure: its claim, if made, lapses and is taken over. */
  private async guarded(delivery: Pick<WebhookDelivery, '_id'>, attempt: () => Promise<void>): Promise<void> {
    try {
      await attempt();
    } catch (error) {
      this.logger.warn(`Webhook delivery ${String(delivery._id)} failed to run: ${(error as Error).message}`);
    }
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
