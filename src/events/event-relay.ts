import { setTimeout as sleep } from 'node:timers/promises';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { Types } from 'mongoose';
import { eventsConfig } from '../config/events.config';
import type { Records } from '../database/records';
import { JobRunner, type JobHandle } from '../jobs/job-runner';
import {
  atVersion,
  LAST_CHANGE,
  madeBy,
  newFence,
  OUTBOX,
  RECORDED_FIELDS,
  versionOf,
  type ChangeRecorder,
  type DeletionIntent,
  type PendingEvent,
  type WithOutbox,
} from '../tenancy/recorded-changes';
import type { TenantScope } from '../tenancy/tenant-scope';
import { asJson, eventBody, newEventId, type PublishedEvent } from './event-body';
import type { EventDeletion } from './event.schema';
import { deletionEvent, EventsRepository } from './events.repository';
import { OutboxEmptying } from './outbox-emptying';

/** Turns a stored record into the object its events carry: what its GET returns, secrets left out. */
export type EventObject<T> = (record: T) => object;

/** Told of recorded events, a batch at a time (webhook deliveries); must be idempotent by event id. */
export interface EventSubscriber {
  eventsRecorded(events: readonly PublishedEvent[]): Promise<void>;
}

type StoredRecord = WithOutbox<{ _id: Types.ObjectId; projectId: Types.ObjectId; updatedAt?: Date }>;

interface EventSource {
  records: Records<unknown>;
  toObject: EventObject<unknown>;
}

/** Changed records a sweep relays at a time. */
const SWEEP_BATCH = 500;
/** Pending deletions a sweep settles at most. */
const DELETIONS_A_SWEEP = 100;
const DAY_MS = 24 * 3600_000;
/** How often an unsettled write's record is read again, until the database answers. */
const UNSETTLED_RETRY_MS = 1000;
/** How often the outboxes this instance published are emptied. */
const OUTBOX_EMPTYING_EVERY_MS = 1000;

/** Copies records' outboxes to the events collection and the subscribers, and settles hard deletes, by the invariant of events.module.ts. */
@Injectable()
export class EventRelay implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(EventRelay.name);
  private readonly sources = new Map<string, EventSource>();
  private readonly subscribers: EventSubscriber[] = [];
  private sweepJob?: JobHandle;
  private emptyingJob?: JobHandle;
  private readonly emptying = new OutboxEmptying();
  private stopRetention?: () => void;
  private closing = false;

  constructor(
    private readonly events: EventsRepository,
    @Inject(eventsConfig.KEY) private readonly config: ConfigType<typeof eventsConfig>,
    private readonly jobs: JobRunner,
  ) {}

  /** One instance sweeps at a time (the job's lease): the others' sweeps would read the same records again. */
  onModuleInit(): void {
    this.emptyingJob = this.jobs.register({
      name: 'events.outbox-emptying',
      everyMs: OUTBOX_EMPTYING_EVERY_MS,
      run: () => this.emptyCopiedOutboxes(),
    });
    if (this.config.sweepIntervalMs <= 0) return;
    this.sweepJob = this.jobs.register({
      name: 'events.sweep',
      everyMs: this.config.sweepIntervalMs,
      lease: { holdMs: this.config.sweepIntervalMs },
      run: (step) => this.sweepSinceLast(step.fence!),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    this.stopRetention = await this.events.expireByAge(this.config.retentionDays * 24 * 3600, this.logger);
  }

  /** A sweep under way ends before the database connection closes. */
  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    this.stopRetention?.();
    await this.sweepJob?.stop();
    await this.emptyingJob?.stop();
    // What this instance published is emptied now rather than left to another's sweep.
    await this.emptying.flush().catch((error: Error) => this.logger.warn(`Emptying outboxes failed: ${error.message}`));
  }

  /** Empties the outboxes whose events this instance recorded (its job's step; tests call it to not wait). */
  emptyCopiedOutboxes(): Promise<void> {
    return this.emptying.flush();
  }

  subscribe(subscriber: EventSubscriber): void {
    this.subscribers.push(subscriber);
  }

  /** The recorder a repository gives its `TenantRecords`, for one model's records and how their events show them. */
  recorder<T>(records: Records<T>, toObject: EventObject<T>): ChangeRecorder<T> {
    const source: EventSource = { records: records as Records<unknown>, toObject: toObject as EventObject<unknown> };
    this.sources.set(records.collectionName, source);
    return {
      pending: (scope, types, before) =>
        types.map((type) => pendingEvent(scope, type, before ? asJson(toObject(before)) : null)),
      publish: async (scope, record, events) => {
        try {
          await this.publish(events.map((event) => published(event, scope.projectId, toObject(record))));
          const stored = record as unknown as StoredRecord;
          this.emptying.add(source.records, { _id: stored._id, projectId: stored.projectId, version: events[0].id });
        } catch (error) {
          this.logger.warn(`Publishing ${events.length} events failed, left to the sweep: ${(error as Error).message}`);
        }
      },
      relayOutboxes: (_scope, records) => this.relayOutboxes(source, records as unknown as StoredRecord[]),
      settleLater: (scope, _id, eventId) =>
        this.readUntilAnswered(source, { _id, projectId: new Types.ObjectId(scope.projectId) }, eventId),
      deletion: (scope, type, records) =>
        this.intendDeletion(source, scope, type, records as unknown as StoredRecord[]),
    };
  }

  /**
   * A sweep from where the last one that finished stopped (kept in the database: whichever instance
   * sweeps next goes on from there, and a new one does not read the past again), and
   * `sweepLookBackMs` before it, for writers whose clocks are behind; before any sweep finished,
   * `sweepStartLookBackMs`.
   */
  async sweepSinceLast(fence: number): Promise<void> {
    const { sweepGraceMs, sweepLookBackMs, sweepStartLookBackMs } = this.config;
    const until = Date.now() - sweepGraceMs;
    const last = await this.events.sweptUntil();
    // A mark ahead of this clock (another sweeper's is ahead) leaves the last minute to read.
    const { firstFailure } = await this.sweepRecords(
      sweepGraceMs,
      last ? Math.max(until - last.getTime(), 0) + sweepLookBackMs : sweepStartLookBackMs,
    );
    // A record that could not be relayed is read again by the next sweep: the mark stops before it,
    // for at most the first sweep's look-back, after which it is left (logged at every try).
    const mark = firstFailure ? Math.max(Math.min(until, firstFailure.getTime()), until - sweepStartLookBackMs) : until;
    await this.events.markSwept(new Date(mark), fence);
  }

  /**
   * Copies the outboxes of every record changed in the `lookBackMs` before `graceMs` ago (a change
   * younger than `graceMs` is still its own request's to publish), and settles the hard deletes pending
   * for longer than `graceMs`. Returns how many records and deletes it read.
   */
  async sweep(graceMs = this.config.sweepGraceMs, lookBackMs = this.config.sweepLookBackMs): Promise<number> {
    return (await this.sweepRecords(graceMs, lookBackMs)).read;
  }

  /**
   * `sweep`, going on past a record or a pending delete that fails (logged with its id): how many it
   * read, and when the earliest record it could not relay was changed.
   */
  private async sweepRecords(
    graceMs: number,
    lookBackMs: number,
  ): Promise<{ read: number; firstFailure: Date | null }> {
    const until = new Date(Date.now() - graceMs);
    const since = new Date(until.getTime() - lookBackMs);
    let read = 0;
    let firstFailure: Date | null = null;
    const relay = async (source: EventSource, batch: StoredRecord[]) => {
      for (const failed of await this.relayEach(source, batch)) {
        const changedAt = new Date(failed.updatedAt ?? until);
        if (!firstFailure || changedAt < firstFailure) firstFailure = changedAt;
      }
      read += batch.length;
    };
    // Read a batch at a time: the first sweep's look back is long.
    for (const source of this.sources.values()) {
      let batch: StoredRecord[] = [];
      const changed = source.records.aggregateEach<StoredRecord>(
        // A published change's outbox is gone: only records still holding one are read.
        [{ $match: { updatedAt: { $gte: since, $lt: until }, [OUTBOX]: { $exists: true } } }],
        SWEEP_BATCH,
      );
      for await (const record of changed) {
        batch.push(record);
        if (batch.length < SWEEP_BATCH) continue;
        await relay(source, batch);
        batch = [];
      }
      await relay(source, batch);
    }
    for (const deletion of await this.events.pendingDeletions(until, DELETIONS_A_SWEEP)) {
      const source = this.sources.get(deletion.deleting.collection);
      try {
        if (source) await this.settleStopped(source, deletion);
      } catch (error) {
        this.logger.warn(
          `Event sweep: the pending delete ${deletion._id} of ${deletion.deleting.collection} ${String(deletion.deleting.id)} failed, left to the next sweep: ${(error as Error).message}`,
        );
      }
      read++;
    }
    return { read, firstFailure };
  }

  /** Relays a batch's outboxes; when that fails, each record alone, so one record stops no other. The records that failed. */
  private async relayEach(source: EventSource, batch: readonly StoredRecord[]): Promise<StoredRecord[]> {
    try {
      await this.relayOutboxes(source, batch);
      return [];
    } catch {
      const failed: StoredRecord[] = [];
      for (const record of batch) {
        try {
          await this.relayOutboxes(source, [record]);
        } catch (error) {
          this.logger.warn(
            `Event sweep: relaying ${source.records.collectionName} ${String(record._id)} failed, read again next sweep: ${(error as Error).message}`,
          );
          failed.push(record);
        }
      }
      return failed;
    }
  }

  /**
   * Publishes the events of these records' outboxes that the events collection lacks (one read of
   * their ids, unless this instance published them itself and has yet to empty them; a published
   * change's outbox is gone within a second, so the records read here are mostly those whose writer
   * stopped), leaving out those past the events' retention, which the collection no longer keeps
   * whether they were published or not: copied again, they would be sent twice. Then queues each of
   * those outboxes to be emptied, unless its record changed meanwhile.
   */
  private async relayOutboxes(source: EventSource, records: readonly StoredRecord[]): Promise<void> {
    const full = records.filter((record) => (record[OUTBOX]?.length ?? 0) > 0);
    if (full.length === 0) return;
    const retained = Date.now() - this.config.retentionDays * DAY_MS;
    const candidates = full
      // This instance's own published change: its events are recorded, no need to ask.
      .filter((record) => !this.emptying.published(record[OUTBOX]![0].id))
      .flatMap((record) =>
        record[OUTBOX]!.filter((event) => new Date(event.createdAt).getTime() > retained).map((event) => ({
          record,
          event,
        })),
      );
    if (candidates.length > 0) {
      const recorded = await this.events.recordedIds(candidates.map(({ event }) => event.id));
      const missing = candidates.filter(({ event }) => !recorded.has(event.id));
      await this.publish(
        missing.map(({ record, event }) => published(event, String(record.projectId), source.toObject(record))),
      );
    }
    for (const record of full)
      this.emptying.add(source.records, {
        _id: record._id,
        projectId: record.projectId,
        version: record[OUTBOX]![0].id,
      });
  }

  /**
   * Subscribers first, then the events collection (`store`: a hard delete's events are listed from
   * where they wait): whichever a process stopped before, the next relay does again.
   */
  private async publish(
    events: readonly PublishedEvent[],
    store = () => this.events.recordMany(events),
  ): Promise<void> {
    if (events.length === 0) return;
    for (const subscriber of this.subscribers) await subscriber.eventsRecorded(events);
    await store();
  }

  /**
   * Reads the record of a write whose answer was lost every second until the database answers: the
   * write happened when the record is at its version (its outbox then relayed). Never settles once the
   * instance is closing: the request's `Idempotency-Key` stays held until its lease lapses.
   */
  private async readUntilAnswered(
    source: EventSource,
    filter: { _id: unknown; projectId: Types.ObjectId },
    eventId: string,
  ): Promise<boolean> {
    for (;;) {
      await sleep(UNSETTLED_RETRY_MS, undefined, { ref: false });
      if (this.closing) return new Promise<never>(() => undefined);
      try {
        const record = (await source.records.findOne(filter, { include: RECORDED_FIELDS })) as StoredRecord | null;
        const happened = madeBy(record, eventId);
        if (happened) await this.relayOutboxes(source, [record!]);
        return happened;
      } catch {
        // Not answered yet: read again.
      }
    }
  }

  /**
   * Each record's deletion event, the record as it was, naming the version its delete is guarded on:
   * the one the record has when it names the same version (a retried or concurrent delete), else a
   * new one. One naming another version is replaced while the record is still at
   * the version read (the other delete can no longer apply); else this delete's read is the old one,
   * and it holds no event for that record.
   */
  private async intendDeletion(
    source: EventSource,
    scope: TenantScope,
    type: string,
    records: readonly StoredRecord[],
  ): Promise<DeletionIntent> {
    const collection = source.records.collectionName;
    const projectId = new Types.ObjectId(scope.projectId);
    const wanted = records.map((record): EventDeletion => {
      const event = published(pendingEvent(scope, type, null), scope.projectId, source.toObject(record));
      const deleting = { collection, id: record._id, version: versionOf(record) };
      return {
        _id: deletionKey(collection, record._id),
        projectId,
        deleting,
        eventId: event.id,
        type,
        createdAt: event.createdAt,
        body: event.body,
      };
    });
    const stored = await this.events.claimDeletions(wanted);
    const held = new Map<string, EventDeletion>();
    const other: EventDeletion[] = [];
    for (const want of wanted) {
      const found = stored.get(want._id);
      if (found && (found.deleting.version ?? null) === want.deleting.version)
        held.set(String(want.deleting.id), found);
      else if (found) other.push(want);
    }
    if (other.length > 0) {
      const current = (await source.records.findByIds(
        other.map((want) => want.deleting.id),
        { fields: ['_id', LAST_CHANGE], include: [LAST_CHANGE] },
      )) as StoredRecord[];
      for (const want of other) {
        const record = current.find((candidate) => candidate._id.equals(want.deleting.id));
        if (!record || versionOf(record) !== want.deleting.version) continue;
        if (await this.events.replaceDeletion(stored.get(want._id)!.eventId, want))
          held.set(String(want.deleting.id), want);
      }
    }
    const of = (ids: readonly string[]) => ids.flatMap((id) => held.get(id) ?? []);
    return {
      holds: (id) => held.has(id),
      settle: async ({ removed = [], gone = [], changed = [] }) => {
        try {
          // A record gone by another delete's hand: listed when that delete held this same event.
          const now = gone.length > 0 ? await this.events.deletionsOf(of(gone).map((deletion) => deletion._id)) : [];
          const shared = of(gone).filter((deletion) =>
            now.some((found) => found._id === deletion._id && found.eventId === deletion.eventId),
          );
          await this.publishDeletions([...of(removed), ...shared]);
          await this.events.discard(of(changed));
        } catch (error) {
          this.logger.warn(
            `Settling ${held.size} delete events failed, left to the sweep: ${(error as Error).message}`,
          );
        }
      },
    };
  }

  private publishDeletions(deletions: readonly EventDeletion[]): Promise<void> {
    return this.publish(
      deletions.map((deletion) => deletionEvent(deletion)),
      () => this.events.settleDeletions(deletions),
    );
  }

  /**
   * A delete whose process stopped, or whose answer was lost, before settling its event: gone, the
   * event stands (the record's one deletion event names the delete that removed it); there at another
   * version, no delete of the version read can apply; there at the same, its outbox is relayed and
   * its version replaced by a fence's, after which none can either. The event is dropped in those
   * two cases.
   */
  private async settleStopped(source: EventSource, deletion: EventDeletion): Promise<void> {
    const { id } = deletion.deleting;
    const version = deletion.deleting.version ?? null;
    const record = (await source.records.findOne(
      { _id: id, projectId: deletion.projectId },
      { include: RECORDED_FIELDS },
    )) as StoredRecord | null;
    if (!record) return this.publishDeletions([deletion]);
    if (versionOf(record) === version) {
      await this.relayOutboxes(source, [record]);
      const fence = await source.records.updateStored(
        { _id: id, projectId: deletion.projectId, ...atVersion(version) },
        { $set: { [LAST_CHANGE]: newFence() } },
      );
      // Matched nothing: the record changed or went meanwhile; the next sweep reads it again.
      if (fence.matched === 0) return;
    }
    await this.events.discard([deletion]);
  }
}

/** The key of a record's one deletion event. */
function deletionKey(collection: string, id: Types.ObjectId): string {
  return `${collection}:${String(id)}`;
}

function pendingEvent(scope: TenantScope, type: string, before: Record<string, unknown> | null): PendingEvent {
  return {
    id: newEventId(),
    type,
    createdAt: new Date(),
    before,
    request: { id: scope.origin.id, idempotencyKey: scope.origin.idempotencyKey },
  };
}

function published(event: PendingEvent, projectId: string, object: object): PublishedEvent {
  return {
    id: event.id,
    type: event.type,
    projectId,
    createdAt: new Date(event.createdAt),
    body: eventBody(event, projectId, object),
  };
}
