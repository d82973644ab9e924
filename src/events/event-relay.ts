import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { Types } from 'mongoose';
import { eventsConfig } from '../config/events.config';
import { LinkedSet } from '../database/patches/linked-set';
import type { Records } from '../database/records';
import { outboxMark, readOutbox, storedOutbox, storedTime, writtenAtAny, writtenByRun } from './stored-outbox';
import { LEGACY_OUTBOX_FIELDS, OUTBOX, type ChangeRecorder, type DeletionIntent, type PendingEvent, type RecordedWrite } from '../tenancy/recorded-changes';
import type { TenantScope } from '../tenancy/tenant-scope';
import { eventBody, newEventId, type PublishedEvent } from './event-body';
import { EventsRepository } from './events.repository';
import { OutboxRecords, type RecordWithOutbox } from './outbox-records';
import { RelayRunsRepository } from './relay-runs.repository';

/** Turns a stored record into the object its events carry: what its GET returns, secrets left out. */
export type EventObject<T> = (record: T) => object;

/** Told of recorded events, a batch at a time (webhook deliveries); must be idempotent by event id. */
export interface EventSubscriber {
  eventsRecorded(events: readonly PublishedEvent[]): Promise<void>;
}

interface EventSource<T> {
  outbox: OutboxRecords<T>;
  toObject: EventObject<T>;
}

/** A recorded change of this run, from its start until its events are in the events collection. */
interface Outstanding {
  at: Date;
  events: PendingEvent[];
  /** Set once the write happened. */
  written?: { source: EventSource<unknown>; _id: Types.ObjectId; projectId: Types.ObjectId; record?: unknown };
}

const LEGACY_AT = LEGACY_OUTBOX_FIELDS[2];

/** How often a run tells the others it is alive and how far it has relayed. */
const HEARTBEAT_MS = 2_000;
/** A run unsettled for this long after its last heartbeat is taken as stopped; its leftovers are recorded by a sweep. */
const SETTLED_RUNS_KEPT_MS = 7 * 24 * 3600 * 1000;
/** Unsettled deletes a sweep takes on. */
const DELETIONS_A_SWEEP = 100;

/**
 * Moves the events a change wrote into its record (the outbox) into the events collection, and
 * tells the subscribers. A request relays its own change before it answers; changes written in the
 * same turn of the event loop share one insert, and batches run side by side (none waits for
 * another). Nothing is written back to the record: the next recorded change replaces the
 * outbox, and may do so only when the outbox is known to be relayed (`relayedOutbox`).
 *
 * Knowing that without reading the events collection: each instance's life is a run
 * (`relay_runs`) that every outbox names, with the time before which all its changes are
 * relayed (`relayedBefore`, its oldest change still under way), written with a heartbeat. An outbox
 * is relayed when it is older than every open run's `relayedBefore` (so older than its own run's),
 * or, written by this run, when its change is no longer under way. Anything else is read and its
 * missing events recorded first (`relayLeftover`), by id, so twice is once. A run whose heartbeat
 * lapsed has its records written since its `relayedBefore` swept by any instance, then is settled.
 */
@Injectable()
export class EventRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(EventRelay.name);
  readonly run = new Types.ObjectId().toHexString();
  /** The outboxes this run writes, for the relayed-outbox condition of every recorded write. */
  private readonly ownOutboxes = writtenByRun(this.run);
  private readonly sources = new Map<string, EventSource<unknown>>();
  private readonly subscribers: EventSubscriber[] = [];
  /** This run's changes not yet relayed, oldest first (in the order they began). */
  private readonly outstanding = new LinkedSet<Outstanding>();
  private queue: Outstanding[] = [];
  /** Written changes whose relay failed: retried by the sweep. */
  private failed: Outstanding[] = [];
  /** The batch being gathered: changes written in the same turn of the event loop are relayed together. */
  private gathering?: Promise<void>;
  /** Batches under way; they run side by side, none waits for another. */
  private running = 0;
  /** Before this, every open run's outbox is relayed: the lowest `relayedBefore` of the open runs when last read. */
  private everyRunRelayedBefore = new Date(0);
  /** Whether the sweep has found every unsettled delete of an earlier build (stored without `unsettled`). */
  private earlierBuildsDeletionsSwept = false;
  private heartbeatTimer?: NodeJS.Timeout;
  private sweepTimer?: NodeJS.Timeout;
  private stopRetention?: () => void;

  constructor(
    private readonly events: EventsRepository,
    private readonly runs: RelayRunsRepository,
    @Inject(eventsConfig.KEY) private readonly config: ConfigType<typeof eventsConfig>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.runs.start(this.run, new Date());
    await this.readRuns();
    this.stopRetention = await this.events.expireByAge(this.config.retentionDays * 24 * 3600, this.logger);
    this.heartbeatTimer = setInterval(() => void this.heartbeat().catch((error: Error) => this.logger.warn(`Relay heartbeat failed: ${error.message}`)), HEARTBEAT_MS);
    this.heartbeatTimer.unref();
    if (this.config.sweepIntervalMs > 0) {
      this.sweepTimer = setInterval(() => void this.sweep().catch((error: Error) => this.logger.warn(`Event sweep failed: ${error.message}`)), this.config.sweepIntervalMs);
      this.sweepTimer.unref();
    }
  }

  /** What this instance wrote is relayed before the database connection closes; a clean stop settles the run. */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.heartbeatTimer);
    clearInterval(this.sweepTimer);
    this.stopRetention?.();
    await this.flush();
    await this.retryFailed();
    try {
      if (this.outstanding.size === 0) await this.runs.settle(this.run, new Date(), new Date());
      else await this.runs.beat(this.run, new Date(), this.relayedBefore());
    } catch (error) {
      this.logger.warn(`Closing relay run ${this.run} failed, left to the sweep: ${(error as Error).message}`);
    }
  }

  subscribe(subscriber: EventSubscriber): void {
    this.subscribers.push(subscriber);
  }

  /** The recorder a repository gives its `TenantRecords`, for one model's records and how their events show them. */
  recorder<T>(records: Records<T>, toObject: EventObject<T>): ChangeRecorder<T> {
    const source: EventSource<T> = { outbox: new OutboxRecords(records), toObject };
    this.sources.set(source.outbox.collectionName, source as EventSource<unknown>);
    return {
      begin: (scope, types, before) => this.begin(source as EventSource<unknown>, scope, types, before ? JSON.stringify(toObject(before)) : null),
      relayedOutbox: () => this.relayedOutbox(),
      isRelayed: (record) => this.isRelayed(record as RecordWithOutbox<T>),
      sameOutbox: (record) => {
        const stored = record as RecordWithOutbox<T>;
        return { [OUTBOX]: stored[OUTBOX] ?? { $exists: false }, [LEGACY_AT]: stored[LEGACY_AT] ?? { $exists: false } };
      },
      relayLeftover: (_scope, record) => this.relayLeftover(source, [record as RecordWithOutbox<T>]),
      deletion: (scope, type, record) => this.intendDeletion(source, scope, type, record),
    };
  }

  /** Before this, on this run's clock, every change this run began is relayed (or did not happen). */
  relayedBefore(): Date {
    for (const change of this.outstanding) return change.at;
    return new Date();
  }

  /** Relays every change written on this instance so far and waits for every batch under way; never throws (what fails is left to the sweep). */
  async flush(): Promise<void> {
    await this.nextBatch();
    while (this.running > 0 || this.gathering) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  /** The batch the changes queued now go in, sent on the next turn of the event loop; never rejects. */
  private nextBatch(): Promise<void> {
    this.gathering ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        const batch = this.queue;
        this.queue = [];
        this.gathering = undefined;
        if (batch.length === 0) return resolve();
        this.running += 1;
        this.relayWritten(batch)
          .catch((error: Error) => {
            this.failed.push(...batch);
            this.logger.warn(`Relaying ${batch.length} changes' events failed, left to the sweep: ${error.message}`);
          })
          .finally(() => {
            this.running -= 1;
            resolve();
          });
      }),
    );
    return this.gathering;
  }

  /**
   * Relays what is left: this run's changes whose relay failed, the records of runs whose heartbeat
   * lapsed `graceMs` ago without settling (their process stopped between its writes), and hard
   * deletes unsettled for as long. Returns how many it took on.
   */
  async sweep(graceMs = this.config.sweepGraceMs): Promise<number> {
    const now = Date.now();
    let handled = await this.retryFailed();
    for (const run of await this.runs.unsettled()) {
      if (run._id === this.run || run.heartbeatAt.getTime() > now - graceMs) continue;
      handled += await this.recordLeftovers((source) => source.outbox.writtenBy(run._id, run.relayedBefore));
      await this.runs.settle(run._id, new Date());
      this.logger.log(`Relay run ${run._id} stopped without settling; its leftovers are recorded`);
    }
    for (const run of await this.runs.legacyUnsettled()) {
      if (run.heartbeatAt.getTime() > now - graceMs) continue;
      handled += await this.recordLeftovers((source) => source.outbox.writtenByLegacyRun(run._id, run.relayedBefore));
      await this.runs.settleLegacy(run._id, new Date());
      this.logger.log(`Relay run ${run._id} (an earlier build's) stopped without settling; its leftovers are recorded`);
    }
    const deletions = await this.events.unsettledDeletions(DELETIONS_A_SWEEP, !this.earlierBuildsDeletionsSwept);
    if (deletions.length < DELETIONS_A_SWEEP) this.earlierBuildsDeletionsSwept = true;
    for (const deletion of deletions) {
      if (deletion.createdAt.getTime() > now - graceMs) continue;
      const source = this.sources.get(deletion.deleting.collection);
      if (!source) continue;
      const stillThere = await source.outbox.exists(deletion.projectId, deletion.deleting.id);
      const event: PublishedEvent = { id: deletion._id, type: deletion.type, projectId: String(deletion.projectId), createdAt: deletion.createdAt, body: deletion.body };
      await this.settleDeletion(deletion.projectId, event, !stillThere);
      handled++;
    }
    await this.runs.forgetSettled(new Date(now - SETTLED_RUNS_KEPT_MS));
    await this.readRuns();
    return handled;
  }

  /** Records the missing events of a stopped run's records, kind by kind; how many records it read. */
  private async recordLeftovers(writtenBy: (source: EventSource<unknown>) => Promise<RecordWithOutbox<unknown>[]>): Promise<number> {
    let read = 0;
    for (const source of this.sources.values()) {
      const left = await writtenBy(source);
      await this.relayLeftover(source, left);
      read += left.length;
    }
    return read;
  }

  private begin(source: EventSource<unknown>, scope: TenantScope, types: readonly string[], before: string | null): RecordedWrite {
    const at = new Date();
    const events = types.map((type) => pendingEvent(scope, type, before, at));
    const change: Outstanding = { at, events };
    this.outstanding.add(change);
    return {
      events,
      outbox: { [OUTBOX]: storedOutbox(at, this.run, events) },
      relay: async (scope, id, record) => {
        change.written = { source, _id: id, projectId: new Types.ObjectId(scope.projectId), record };
        this.queue.push(change);
        await this.nextBatch();
      },
      abandon: () => void this.outstanding.delete(change),
    };
  }

  /**
   * An outbox is relayed when there is none, when it is older than every open run's watermark, or
   * when this run wrote it and its change is no longer under way. An outbox of the earlier form is
   * judged by the watermark alone: no run of this build writes one.
   */
  private relayedOutbox(): Record<string, unknown> {
    const underWay = this.outstandingTimes();
    const ownRelayed =
      underWay.length === 0
        ? { [OUTBOX]: this.ownOutboxes }
        : { $and: [{ [OUTBOX]: this.ownOutboxes }, { [OUTBOX]: { $not: writtenAtAny(underWay) } }] };
    return {
      $and: [
        { $or: [{ [OUTBOX]: { $exists: false } }, { [OUTBOX]: { $lt: storedTime(this.everyRunRelayedBefore) } }, ownRelayed] },
        { $or: [{ [LEGACY_AT]: { $exists: false } }, { [LEGACY_AT]: { $lt: this.everyRunRelayedBefore } }] },
      ],
    };
  }

  private isRelayed(record: RecordWithOutbox<unknown>): boolean {
    const legacyAt = record[LEGACY_AT];
    if (legacyAt && legacyAt >= this.everyRunRelayedBefore) return false;
    const stored = record[OUTBOX];
    if (!stored) return true;
    const mark = outboxMark(stored);
    if (mark.at < this.everyRunRelayedBefore) return true;
    return mark.run === this.run && !this.outstandingTimes().some((time) => time.getTime() === mark.at.getTime());
  }

  /**
   * When this run's changes still under way began: an outbox this run wrote at any other time is
   * relayed (its change's relay finished; a failed one stays under way until the sweep retries it).
   * Two changes begun in the same millisecond both count as under way until both are relayed.
   */
  private outstandingTimes(): Date[] {
    const times: Date[] = [];
    for (const change of this.outstanding) times.push(change.at);
    return times;
  }

  private async heartbeat(): Promise<void> {
    await this.runs.beat(this.run, new Date(), this.relayedBefore());
    await this.readRuns();
  }

  private async readRuns(): Promise<void> {
    const open = [...(await this.runs.unsettled()), ...(await this.runs.legacyUnsettled())];
    const own = this.relayedBefore();
    // This run's own entry may be older than its live watermark; never newer.
    this.everyRunRelayedBefore = new Date(Math.min(own.getTime(), ...open.map((run) => run.relayedBefore.getTime())));
  }

  private async retryFailed(): Promise<number> {
    if (this.failed.length === 0) return 0;
    const retry = this.failed;
    this.failed = [];
    this.queue.push(...retry);
    await this.flush();
    return retry.length;
  }

  /** Each written change's events, with its record as the write left it (read when the write did not answer it). */
  private async relayWritten(batch: readonly Outstanding[]): Promise<void> {
    const published: PublishedEvent[] = [];
    const bySource = new Map<EventSource<unknown>, Outstanding[]>();
    for (const change of batch) {
      const changes = bySource.get(change.written!.source);
      if (changes) changes.push(change);
      else bySource.set(change.written!.source, [change]);
    }
    for (const [source, changes] of bySource) {
      const unread = changes.filter((change) => change.written!.record === undefined).map((change) => change.written!);
      const read = unread.length > 0 ? await source.outbox.withOutbox(unread) : [];
      const byId = new Map(read.map((record) => [String(record._id), record]));
      for (const change of changes) {
        const { _id, projectId, record } = change.written!;
        const current = record ?? byId.get(String(_id));
        // Gone meanwhile: a hard delete records the events its record still holds before removing it.
        if (!current) continue;
        const object = source.toObject(current);
        for (const event of change.events) published.push(publish(event, String(projectId), object));
      }
    }
    await this.publish(published);
    for (const change of batch) this.outstanding.delete(change);
  }

  /** Records the events of these records' outboxes that are not in the events collection yet. */
  private async relayLeftover<T>(source: EventSource<T>, records: readonly RecordWithOutbox<T>[]): Promise<void> {
    const candidates = records.flatMap((record) => readOutbox(record).map((event) => ({ record, event })));
    if (candidates.length === 0) return;
    const recorded = await this.events.recordedIds(candidates.map(({ event }) => event.id));
    const missing = candidates.filter(({ event }) => !recorded.has(event.id));
    await this.publish(missing.map(({ record, event }) => publish(event, String(record.projectId), source.toObject(record))));
  }

  /** Subscribers first, then the events collection: whichever a process died before, the next relay does again. */
  private async publish(published: readonly PublishedEvent[]): Promise<void> {
    if (published.length === 0) return;
    for (const subscriber of this.subscribers) await subscriber.eventsRecorded(published);
    await this.events.recordMany(published);
  }

  private async intendDeletion<T>(source: EventSource<T>, scope: TenantScope, type: string, record: T): Promise<DeletionIntent> {
    const pending = pendingEvent(scope, type, null, new Date());
    const body = eventBody(pending, scope.projectId, source.toObject(record));
    const event: PublishedEvent = { id: pending.id, type, projectId: scope.projectId, createdAt: pending.createdAt, body };
    const recordId = (record as { _id: Types.ObjectId })._id;
    const projectId = new Types.ObjectId(scope.projectId);
    await this.events.record(projectId, { _id: event.id, type, createdAt: pending.createdAt, body }, { collection: source.outbox.collectionName, id: recordId });
    return {
      settle: async (deleted) => {
        try {
          await this.settleDeletion(projectId, event, deleted);
        } catch (error) {
          this.logger.warn(`Settling the delete event ${event.id} failed, left to the sweep: ${(error as Error).message}`);
        }
      },
    };
  }

  private async settleDeletion(projectId: Types.ObjectId, event: PublishedEvent, deleted: boolean): Promise<void> {
    if (!deleted) return this.events.discard(projectId, event.id);
    for (const subscriber of this.subscribers) await subscriber.eventsRecorded([event]);
    await this.events.settle(projectId, event.id);
  }
}

function pendingEvent(scope: TenantScope, type: string, before: string | null, createdAt: Date): PendingEvent {
  return { id: newEventId(), type, createdAt, before, request: { id: scope.origin.id, idempotencyKey: scope.origin.idempotencyKey } };
}

function publish(event: PendingEvent, projectId: string, object: object): PublishedEvent {
  return { id: event.id, type: event.type, projectId, createdAt: new Date(event.createdAt), body: eventBody(event, projectId, object) };
}
