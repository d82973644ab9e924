import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';

/** Where a hard delete's pending event points: the record that must be gone for the event to stand. */
export interface DeletedRecord {
  collection: string;
  id: Types.ObjectId;
  /** The ids of the events in the record's outbox when it was read (null: it had none), on which the delete is guarded. */
  outbox: string[] | null;
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

  /** Set on a hard delete's event until the delete is known to have happened; such events are not listed. */
  @Prop({ type: MongooseSchema.Types.Mixed, default: undefined })
  deleting?: DeletedRecord;

  /** True beside `deleting`, gone with it: the sweep finds pending deletes by this one indexed value. */
  @Prop({ type: Boolean, default: undefined })
  unsettled?: true;
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
}

export const EventSweepSchema = SchemaFactory.createForClass(EventSweep);

/** A hard delete's event not settled yet, with what the sweep needs to settle it. */
export type PendingDeletion = Pick<StoredEvent, '_id' | 'projectId' | 'type' | 'createdAt' | 'body'> & { deleting: DeletedRecord };

export const StoredEventSchema = SchemaFactory.createForClass(StoredEvent);
tenantOwned(StoredEventSchema);

// The list, newest first, and filtered by type.
StoredEventSchema.index({ projectId: 1, _id: -1 });
StoredEventSchema.index({ projectId: 1, type: 1, _id: -1 });
// The sweep of deletes left pending.
StoredEventSchema.index({ unsettled: 1 });
