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

type EventSource = { records: Records<unknown>; toObject: EventObject<unknown> };

/** Changed records a sweep relays at a time; pending deletes it settles at most. */
const SWEEP_BATCH = 500;
const DELETIONS_A_SWEEP = 100;
const DAY_MS = 24 * 3600_000;

/** Copies records' outboxes to the events collection and the subscribers, and settles hard deletes, by the invariant of events.module.ts. */
@Injectable()
export class EventRelay implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(EventRelay.name);
  private readonly sources = new Map<string, EventSource>();
  private readonly subscribers: EventSubscriber[] = [];
  private readonly emptying = new OutboxEmptying();
  private readonly jobHandles: JobHandle[] = [];
  private stopRetention?: () => void;
  private closing = false;

  constructor(
    private readonly events: EventsRepository,
    @Inject(eventsConfig.KEY) private readonly config: ConfigType<typeof eventsConfig>,
    private readonly jobs: JobRunner,
  ) {}

  /** One instance sweeps at a time (the job's lease): the others' sweeps would read the same records again. */
  onModuleInit(): void {
    this.jobHandles.push(
      this.jobs.register({ name: 'events.outbox-emptying', everyMs: 1000, run: () => this.emptyCopiedOutboxes() }),
      this.jobs.register({
        name: 'events.sweep',
        everyMs: this.config.sweepIntervalMs,
        lease: { holdMs: this.config.sweepIntervalMs },
        run: (step) => this.sweepSinceLast(step.fence!),
      }),
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    this.stopRetention = await this.events.expireByAge(this.config.retentionDays * 24 * 3600, this.logger);
  }

  /** The jobs end before the database connection closes; what this instance published is emptied now, not left to a sweep. */
  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    this.stopRetention?.();
    for (const job of this.jobHandles) await job.stop();
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
          const { _id, projectId } = record as unknown as StoredRecord;
          this.emptying.add(source.records, { _id, projectId, version: events[0].id });
        } catch (error) {
          this.logger.warn(`Publishing ${events.length} events failed, left to the sweep: ${(error as Error).message}`);
        }
      },
      relayOutboxes: (_scope, records) => this.relayOutboxes(source, records as unknown as StoredRecord[]),
      settleLater: (scope, _id, eventId) => this.readUntilAnswered(source, scope, _id, eventId),
      deletion: (scope, type, records) =>
        this.intendDeletion(source, scope, type, records as unknown as StoredRecord[]),
    };
  }

  /**
   * A sweep from where the last one that finished stopped (a mark in the database, so that whichever
   * instance sweeps next goes on from there), `sweepLookBackMs` before it for writers whose clocks are
   * behind; before any, `sweepStartLookBackMs`. The mark stops before a record that could not be
   * relayed, so the next sweeps read it again, for at most that first look-back.
   */
  async sweepSinceLast(fence: number): Promise<void> {
    const { sweepGraceMs, sweepLookBackMs, sweepStartLookBackMs } = this.config;
    const until = Date.now() - sweepGraceMs;
    const last = await this.events.sweptUntil();
    // A mark ahead of this clock (another sweeper's is ahead) leaves the look-back to read.
    const lookBack = last ? Math.max(until - last.getTime(), 0) + sweepLookBackMs : sweepStartLookBackMs;
    const firstFailure = await this.sweep(sweepGraceMs, lookBack);
    const mark = firstFailure ? Math.max(Math.min(until, firstFailure.getTime()), until - sweepStartLookBackMs) : until;
    await this.events.markSwept(new Date(mark), fence);
  }

  /**
   * Copies the outboxes of the records changed in the `lookBackMs` before `graceMs` ago (a younger
   * change is still its own request's to publish) and settles the hard deletes pending for longer,
   * going on past any that fails (logged with its id). Answers when the earliest record it could not
   * relay was changed, or null.
   */
  async sweep(graceMs = this.config.sweepGraceMs, lookBackMs = this.config.sweepLookBackMs): Promise<Date | null> {
    const until = new Date(Date.now() - graceMs);
    const since = new Date(until.getTime() - lookBackMs);
    let firstFailure: Date | null = null;
    const relay = async (source: EventSource, batch: StoredRecord[]) => {
      for (const failed of await this.relayEach(source, batch)) {
        const changedAt = failed.updatedAt ?? until;
        if (!firstFailure || changedAt < firstFailure) firstFailure = changedAt;
      }
    };
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
      const { collection, id } = deletion.deleting;
      const source = this.sources.get(collection);
      if (source)
        await this.settleStopped(source, deletion).catch((error: Error) =>
          this.logger.warn(
            `Event sweep: the pending delete ${deletion._id} of ${collection} ${String(id)} failed, left to the next sweep: ${error.message}`,
          ),
        );
    }
    return firstFailure;
  }

  /** Relays a batch; when that fails, each record alone, so one record stops no other. The records that failed. */
  private async relayEach(source: EventSource, batch: readonly StoredRecord[]): Promise<StoredRecord[]> {
    try {
      await this.relayOutboxes(source, batch);
      return [];
    } catch {
      const failed: StoredRecord[] = [];
      for (const record of batch) {
        await this.relayOutboxes(source, [record]).catch((error: Error) => {
          this.logger.warn(
            `Event sweep: relaying ${source.records.collectionName} ${String(record._id)} failed, read again next sweep: ${error.message}`,
          );
          failed.push(record);
        });
      }
      return failed;
    }
  }

  /**
   * Publishes the events of these records' outboxes that the events collection lacks, then queues
   * each outbox to be emptied while its record holds it. The collection is asked once, and not about
   * an outbox this instance published itself; an event past the retention is left out, since the
   * collection no longer keeps it whether it was published or not (copied again, it would be sent twice).
   */
  private async relayOutboxes(source: EventSource, records: readonly StoredRecord[]): Promise<void> {
    const full = records.filter((record) => (record[OUTBOX]?.length ?? 0) > 0);
    const retained = Date.now() - this.config.retentionDays * DAY_MS;
    const candidates = full
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
    for (const { _id, projectId, [OUTBOX]: outbox } of full)
      this.emptying.add(source.records, { _id, projectId, version: outbox![0].id });
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
    scope: TenantScope,
    _id: unknown,
    eventId: string,
  ): Promise<boolean> {
    const filter = { _id, projectId: new Types.ObjectId(scope.projectId) };
    for (;;) {
      await sleep(1000, undefined, { ref: false });
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
   * new one. One naming another version is replaced while the record is still at the version read
   * (the other delete can no longer apply); else this delete's read is the old one, and it holds no
   * event for that record.
   */
  private async intendDeletion(
    source: EventSource,
    scope: TenantScope,
    type: string,
    records: readonly StoredRecord[],
  ): Promise<DeletionIntent> {
    const collection = source.records.collectionName;
    const wanted = records.map((record): EventDeletion => {
      const { id, createdAt, body } = published(
        pendingEvent(scope, type, null),
        scope.projectId,
        source.toObject(record),
      );
      return {
        _id: `${collection}:${String(record._id)}`,
        projectId: new Types.ObjectId(scope.projectId),
        deleting: { collection, id: record._id, version: versionOf(record) },
        eventId: id,
        type,
        createdAt,
        body,
      };
    });
    const stored = await this.events.claimDeletions(wanted);
    const held = new Map<string, EventDeletion>();
    const stale: EventDeletion[] = [];
    for (const want of wanted) {
      const found = stored.get(want._id);
      if (found && (found.deleting.version ?? null) === want.deleting.version)
        held.set(String(want.deleting.id), found);
      else if (found) stale.push(want);
    }
    const current = (await source.records.findByIds(
      stale.map((want) => want.deleting.id),
      { fields: ['_id', LAST_CHANGE], include: [LAST_CHANGE] },
    )) as StoredRecord[];
    for (const want of stale) {
      const record = current.find((candidate) => candidate._id.equals(want.deleting.id));
      if (record && versionOf(record) === want.deleting.version)
        if (await this.events.replaceDeletion(stored.get(want._id)!.eventId, want))
          held.set(String(want.deleting.id), want);
    }
    const of = (ids: readonly string[]) => ids.flatMap((id) => held.get(id) ?? []);
    return {
      holds: (id) => held.has(id),
      settle: async ({ removed = [], gone = [], changed = [] }) => {
        try {
          // A record gone by another delete's hand: listed when that delete held this same event.
          const now = await this.events.deletionsOf(of(gone).map((deletion) => deletion._id));
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
    return this.publish(deletions.map(deletionEvent), () => this.events.settleDeletions(deletions));
  }

  /**
   * A delete whose process stopped, or whose answer was lost, before settling its event: gone, the
   * event is listed (the record's one deletion event names the delete that removed it); there at
   * another version, no delete of the version read can apply; there at the same, its outbox is
   * relayed and its version replaced by a fence's, after which none can either. The event is dropped
   * in those two cases.
   */
  private async settleStopped(source: EventSource, deletion: EventDeletion): Promise<void> {
    const { id, version = null } = deletion.deleting;
    const filter = { _id: id, projectId: deletion.projectId };
    const record = (await source.records.findOne(filter, { include: RECORDED_FIELDS })) as StoredRecord | null;
    if (!record) return this.publishDeletions([deletion]);
    if (versionOf(record) === version) {
      await this.relayOutboxes(source, [record]);
      const fence = await source.records.updateStored(
        { ...filter, ...atVersion(version) },
        { $set: { [LAST_CHANGE]: newFence() } },
      );
      // Matched nothing: the record changed or went meanwhile; the next sweep reads it again.
      if (fence.matched === 0) return;
    }
    await this.events.discard([deletion]);
  }
}

function pendingEvent(scope: TenantScope, type: string, before: Record<string, unknown> | null): PendingEvent {
  const { id, idempotencyKey } = scope.origin;
  return { id: newEventId(), type, createdAt: new Date(), before, request: { id, idempotencyKey } };
}

function published(event: PendingEvent, projectId: string, object: object): PublishedEvent {
  const { id, type, createdAt } = event;
  return { id, type, projectId, createdAt: new Date(createdAt), body: eventBody(event, projectId, object) };
}
