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

/** Told of every event once it is recorded (webhook deliveries); must be idempotent by event id. */
export interface EventSubscriber {
  eventRecorded(event: PublishedEvent): Promise<void>;
}

interface EventSource<T> {
  outbox: OutboxRecords<T>;
  toObject: EventObject<T>;
}

/** How many flagged records or unsettled deletes one sweep takes on, per kind. */
const SWEEP_BATCH = 100;

/**
 * Moves events from the records whose changes wrote them (their outbox) into the events collection,
 * and tells the subscribers. Right after each write, on the request that made it; and, for a process
 * that stopped in between, by a sweep on every instance. Every step is idempotent by event id, in the
 * order subscribers, events collection, outbox cleared: whichever step a process died before, the
 * next relay of that record does it again, and the event is recorded once.
 */
@Injectable()
export class EventRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(EventRelay.name);
  private readonly sources = new Map<string, EventSource<unknown>>();
  private readonly subscribers: EventSubscriber[] = [];
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

  onModuleDestroy(): void {
    clearInterval(this.sweepTimer);
    this.stopRetention?.();
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
      relay: (scope, id) => this.relayQuietly(source, new Types.ObjectId(scope.projectId), id),
      deletion: (scope, type, record) => this.intendDeletion(source, scope, type, record),
    };
  }

  /**
   * Relays what an earlier relay left (a process stopped between writes): records whose outbox is
   * older than `graceMs`, and hard deletes unsettled for as long. Returns how many it took on.
   */
  async sweep(graceMs = this.config.sweepGraceMs): Promise<number> {
    const cutoff = Date.now() - graceMs;
    let handled = 0;
    for (const source of this.sources.values()) {
      for (const record of await source.outbox.flagged(SWEEP_BATCH)) {
        const newest = Math.max(0, ...(record.pendingEvents ?? []).map((pending) => new Date(pending.createdAt).getTime()));
        if (newest > cutoff) continue;
        await this.relayRecord(source, record);
        handled++;
      }
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

  private async relayQuietly<T>(source: EventSource<T>, projectId: Types.ObjectId, id: Types.ObjectId): Promise<void> {
    try {
      const record = await source.outbox.withOutbox(projectId, id);
      if (record) await this.relayRecord(source, record);
    } catch (error) {
      // The change stands and its event waits in the record: the sweep relays it.
      this.logger.warn(`Relaying the events of ${source.outbox.collection} ${String(id)} failed, left to the sweep: ${(error as Error).message}`);
    }
  }

  private async relayRecord<T>(source: EventSource<T>, record: RecordWithOutbox<T>): Promise<void> {
    const pending = record.pendingEvents ?? [];
    const projectId = String(record.projectId);
    if (pending.length > 0) {
      const object = source.toObject(record);
      for (const event of pending) {
        const createdAt = new Date(event.createdAt);
        await this.publish(record.projectId, { id: event.id, type: event.type, projectId, createdAt, body: eventBody(event, projectId, object) });
      }
    }
    await source.outbox.clear(
      record.projectId,
      record._id,
      pending.map((event) => event.id),
    );
  }

  private async publish(projectId: Types.ObjectId, event: PublishedEvent): Promise<void> {
    for (const subscriber of this.subscribers) await subscriber.eventRecorded(event);
    await this.events.record(projectId, { _id: event.id, type: event.type, createdAt: event.createdAt, body: event.body });
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
    for (const subscriber of this.subscribers) await subscriber.eventRecorded(event);
    await this.events.settle(projectId, event.id);
  }
}

function pendingEvent(scope: TenantScope, type: string, before: string | null): PendingEvent {
  return { id: newEventId(), type, createdAt: new Date(), before, request: { id: scope.origin.id, idempotencyKey: scope.origin.idempotencyKey } };
}
