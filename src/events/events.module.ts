/**
 * The outbox's invariant, which every recorded write of `TenantRecords` follows: a change writes its
 * events into its record's `outbox`, and its first event's id as the record's version, in the same
 * single-document insert or update as the change, so a change that happened holds its events and one
 * that did not holds none. No write replaces or removes an outbox before its events are in the events
 * collection: it first copies the outbox it read (by event id, so twice is once) and is guarded on
 * the version it read; a copied outbox is removed (off the request, within a second) only while the
 * record still holds that same outbox, matched by its event id. The
 * writer then publishes its own events; should it stop or fail first, they stay in the record, where
 * every instance's sweep finds them by the record's recent `updatedAt`, and a write whose answer was
 * lost happened exactly when the record is at its version. A hard delete writes each record's event
 * pending before the delete, guarded like any write, listed once the record is gone, or dropped once
 * the record is at another version (a fence's version makes a delete of the one read impossible). A
 * record has one deletion event at a time, keyed by the record and naming the version read: a
 * retried or concurrent delete of that version uses it, so its id follows from the record and the
 * change, and a record gone has exactly the event of the delete that removed it.
 */
import { Global, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import {
  EventDeletion,
  EventDeletionSchema,
  EventSweep,
  EventSweepSchema,
  StoredEvent,
  StoredEventSchema,
} from './event.schema';
import { EventFeed } from './event-feed';
import { EventLookup } from './event-lookup';
import { EventRelay } from './event-relay';
import { EventsController } from './events.controller';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';

/**
 * Events: recorded by every data module's repository through the relay (global, so each area's
 * repository can take it without importing this module), listed by `GET /v1/events`, and followed
 * by the search index through `EventFeed`, asked whether a project has an event through `EventLookup`.
 */
@Global()
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: StoredEvent.name, schema: StoredEventSchema },
      { name: EventSweep.name, schema: EventSweepSchema },
      { name: EventDeletion.name, schema: EventDeletionSchema },
    ]),
  ],
  controllers: [EventsController],
  providers: [EventsRepository, EventsService, EventRelay, EventFeed, EventLookup],
  exports: [EventRelay, EventFeed, EventLookup],
})
export class EventsModule {}
