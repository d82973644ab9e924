import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { Types, type Model } from 'mongoose';
import { eventsConfig } from '../config/events.config';
import type { ChangeRecorder, DeletionIntent, PendingEvent } from '../tenancy/recorded-changes';
import type { TenantScope } from '../tenancy/tenant-scope';
import { eventBody, newEventId, type PublishedEvent } from './event-body';
import { EventsRepository } from './events.repository';
import { OutboxRecords, type RecordWithOutbox } from './outbox-records';

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

/** A record written with pending events, waiting for this instance's relay. */
interface Written {
  source: EventSource<unknown>;
  _id: Types.ObjectId;
  projectId: Types.ObjectId;
  /** The record as its write answered it, outbox included; absent, it is read. */
  record?: RecordWithOutbox<unknown>;
}

/** How many flagged records or unsettled deletes one sweep takes on, per kind. */
const SWEEP_BATCH = 100;

/**
 * Moves events from the records whose changes wrote them (their outbox) into the events collection,
 * and tells the subscribers. A request relays the records it wrote before it answers, in batches:
 * requests that wrote while a batch was under way are relayed together by the next, in a few
 * commands whatever their number. For a process that stopped in between, a sweep on every instance
 * relays what is left. Every step is idempotent by event id, in the order subscribers, events collection, outbox
 * cleared: whichever step a process died before, the next relay of that record does it again, and
 * the event is recorded once.
 */
@Injectable()
export class EventRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(EventRelay.name);
  private readonly sources = new Map<string, EventSource<unknown>>();
  private readonly subscribers: EventSubscriber[] = [];
  private queue: Written[] = [];
  private flushing?: Promise<void>;
  private sweepTimer?: NodeJS.Timeout;
  private stopRetention?: () => void;

  constructor(
    private readonly events: EventsRepository,
    @Inject(eventsConfig.KEY) private readonly config: ConfigType<typeof eventsConfig>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.stopRetention = await this.events.expireByAge(this.config.retentionDays * 24 * 3600, this.logger);
    if (this.config.sweepIntervalMs > 0) {
      this.sweepTimer = setInterval(() => void this.sweep().catch((error: Error) => this.logger.warn(`Event sweep failed: ${error.message}`)), this.config.sweepIntervalMs);
      this.sweepTimer.unref();
    }
  }

  /** What this instance wrote is relayed before the database connection closes. */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweepTimer);
    this.stopRetention?.();
    await this.flush();
  }

  subscribe(subscriber: EventSubscriber): void {
    this.subscribers.push(subscriber);
  }

  /** The recorder a repository gives its `TenantRecords`, for one model's records and how their events show them. */
  recorder<T>(model: Model<T>, toObject: EventObject<T>): ChangeRecorder<T> {
    const source: EventSource<T> = { outbox: new OutboxRecords(model), toObject };
    this.sources.set(source.outbox.collection, source as EventSource<unknown>);
    return {
      pending: (scope, type, before) => pendingEvent(scope, type, before ? JSON.stringify(toObject(before)) : null),
      relay: async (scope, id, written) => {
        this.queue.push({ source: source as EventSource<unknown>, _id: id, projectId: new Types.ObjectId(scope.projectId), record: written as RecordWithOutbox<unknown> | undefined });
        await this.flush();
      },
      deletion: (scope, type, record) => this.intendDeletion(source, scope, type, record),
    };
  }

  /** Relays every record written on this instance so far, as one batch; never throws (what fails is left to the sweep). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.flushing = this.relayWritten(batch)
      .catch((error: Error) => this.logger.warn(`Relaying ${batch.length} records' events failed, left to the sweep: ${error.message}`))
      .finally(() => (this.flushing = undefined));
    await this.flushing;
  }

  /**
   * Relays what an earlier relay left (a process stopped between writes): records whose outbox is
   * older than `graceMs`, and hard deletes unsettled for as long. Returns how many it took on.
   */
  async sweep(graceMs = this.config.sweepGraceMs): Promise<number> {
    const cutoff = Date.now() - graceMs;
    let handled = 0;
    for (const source of this.sources.values()) {
      const stale = (await source.outbox.flagged(SWEEP_BATCH)).filter(
        (record) => Math.max(0, ...(record.pendingEvents ?? []).map((pending) => new Date(pending.createdAt).getTime())) <= cutoff,
      );
      if (stale.length > 0) await this.relayRecords(source, stale);
      handled += stale.length;
    }
    for (const deletion of await this.events.unsettledDeletions(SWEEP_BATCH)) {
      if (deletion.createdAt.getTime() > cutoff) continue;
      const source = this.sources.get(deletion.deleting.collection);
      if (!source) continue;
      const stillThere = await source.outbox.exists(deletion.projectId, deletion.deleting.id);
      const event: PublishedEvent = { id: deletion._id, type: deletion.type, projectId: String(deletion.projectId), createdAt: deletion.createdAt, body: deletion.body };
      await this.settleDeletion(deletion.projectId, event, !stillThere);
      handled++;
    }
    return handled;
  }

  private async relayWritten(batch: readonly Written[]): Promise<void> {
    const bySource = new Map<EventSource<unknown>, Written[]>();
    for (const written of batch) bySource.set(written.source, [...(bySource.get(written.source) ?? []), written]);
    for (const [source, written] of bySource) {
      const known = written.flatMap((entry) => (entry.record ? [entry.record] : []));
      const unread = written.filter((entry) => !entry.record);
      await this.relayRecords(source, [...known, ...(unread.length > 0 ? await source.outbox.withOutbox(unread) : [])]);
    }
  }

  private async relayRecords<T>(source: EventSource<T>, records: readonly RecordWithOutbox<T>[]): Promise<void> {
    const published: PublishedEvent[] = [];
    for (const record of records) {
      const pending = record.pendingEvents ?? [];
      if (pending.length === 0) continue;
      const projectId = String(record.projectId);
      const object = source.toObject(record);
      for (const event of pending) {
        published.push({ id: event.id, type: event.type, projectId, createdAt: new Date(event.createdAt), body: eventBody(event, projectId, object) });
      }
    }
    if (published.length > 0) {
      for (const subscriber of this.subscribers) await subscriber.eventsRecorded(published);
      await this.events.recordMany(published);
    }
    await source.outbox.clear(records.map((record) => ({ _id: record._id, projectId: record.projectId, eventIds: (record.pendingEvents ?? []).map((event) => event.id) })));
  }

  private async intendDeletion<T>(source: EventSource<T>, scope: TenantScope, type: string, record: T): Promise<DeletionIntent> {
    const pending = pendingEvent(scope, type, null);
    const body = eventBody(pending, scope.projectId, source.toObject(record));
    const event: PublishedEvent = { id: pending.id, type, projectId: scope.projectId, createdAt: pending.createdAt, body };
    const recordId = (record as { _id: Types.ObjectId })._id;
    const projectId = new Types.ObjectId(scope.projectId);
    await this.events.record(projectId, { _id: event.id, type, createdAt: pending.createdAt, body }, { collection: source.outbox.collection, id: recordId });
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

function pendingEvent(scope: TenantScope, type: string, before: string | null): PendingEvent {
  return { id: newEventId(), type, createdAt: new Date(), before, request: { id: scope.origin.id, idempotencyKey: scope.origin.idempotencyKey } };
}
