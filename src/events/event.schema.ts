import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';

/** The record a hard delete's event is about, and the version of it the delete is guarded on. */
export interface DeletedRecord {
  collection: string;
  id: Types.ObjectId;
  /** The record's version when read (`lastChange`; null before any recorded change): each recorded write moves it. */
  version: string | null;
}

/**
 * One recorded event of a platform project. The event as the API and webhooks send it is stored as
 * its JSON (`body`), written once: its bytes are what deliveries sign, and no field of a resource's
 * object has to survive the database's typing. `type` and `createdAt` are kept beside it for filters.
 */
@Schema({ ...schemaOptions('events'), timestamps: false })
export class StoredEvent {
  /** `evt_` and a new ObjectId's hex: unique, in time order. */
  @Prop({ type: String, required: true })
  _id: string;

  projectId: Types.ObjectId;

  @Prop({ type: String, required: true })
  type: string;

  @Prop({ type: Date, required: true })
  createdAt: Date;

  @Prop({ type: String, required: true })
  body: string;

  /** The id of the resource the event is about (`data.object.id`), for the list of one object's events. */
  @Prop({ type: String, default: undefined })
  objectId?: string;
}

/**
 * Until when the events sweep relayed every change: one document, so that whichever instance sweeps
 * next goes on from there (src/events/event-relay.ts). Holds no tenant data.
 */
@Schema({ ...schemaOptions('event_sweeps'), timestamps: false })
export class EventSweep {
  @Prop({ type: String, required: true })
  _id: string;

  @Prop({ type: Date, required: true })
  until: Date;

  /** The fencing token of the sweep's lease under which the mark last moved: a holder taken over moves it no more. */
  @Prop({ type: Number, default: null })
  fence: number | null;
}

export const EventSweepSchema = SchemaFactory.createForClass(EventSweep);

/**
 * A record's one deletion event (`_id` is `<collection>:<record id>`), by the invariant of
 * events.module.ts: written pending before the record goes, listed once it is gone. Holds no other
 * tenant data than the event's.
 */
@Schema({ ...schemaOptions('event_deletions'), timestamps: false })
export class EventDeletion {
  @Prop({ type: String, required: true })
  _id: string;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  projectId: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.Mixed, required: true })
  deleting: DeletedRecord;

  /** The event as it is listed (`StoredEvent`'s `_id`, `type`, `createdAt`, `body`). */
  @Prop({ type: String, required: true })
  eventId: string;

  @Prop({ type: String, required: true })
  type: string;

  @Prop({ type: Date, required: true })
  createdAt: Date;

  @Prop({ type: String, required: true })
  body: string;

  /** Until the event is listed: the sweep finds the deletes left pending by this one indexed value. */
  @Prop({ type: Boolean, default: undefined })
  unsettled?: true;
}

export const EventDeletionSchema = SchemaFactory.createForClass(EventDeletion);
EventDeletionSchema.index({ unsettled: 1 });

export const StoredEventSchema = SchemaFactory.createForClass(StoredEvent);
tenantOwned(StoredEventSchema);

// The list, newest first, and filtered by type.
StoredEventSchema.index({ projectId: 1, _id: -1 });
StoredEventSchema.index({ projectId: 1, type: 1, _id: -1 });
// One object's events (a payment's timeline), newest first.
StoredEventSchema.index({ projectId: 1, objectId: 1, _id: -1 });
