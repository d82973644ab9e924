import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { Types } from 'mongoose';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';
import { recordsEvents } from '../tenancy/outbox.plugin';

@Schema(schemaOptions('collections'))
export class Collection {
  _id: Types.ObjectId;

  /** The platform project that owns the record: added by `tenantOwned`, set on create, never returned. */
  projectId: Types.ObjectId;

  @Prop({ type: String, required: true, trim: true })
  name: string;

  @Prop({ type: String, default: null })
  description: string | null;

  @Prop({ type: Number, default: null })
  numberOfClients: number | null;

  @Prop({ type: Number, default: null })
  numberOfUsers: number | null;

  @Prop({ type: String, default: null })
  usage: string | null;

  @Prop({ type: Number, default: null })
  pricing: number | null;

  @Prop({ type: [Number], default: [] })
  endpoints: number[];

  /** Set by a soft delete, cleared by a restore; null while the collection is live. */
  @Prop({ type: Date, default: null })
  deletedAt: Date | null;

  createdAt: Date;
  updatedAt: Date;
}

export const CollectionSchema = SchemaFactory.createForClass(Collection);
tenantOwned(CollectionSchema);
recordsEvents(CollectionSchema);

// Every query is inside one platform project. Lists filter by deletedAt and page newest first;
// lookups by id also check deletedAt.
CollectionSchema.index({ projectId: 1, deletedAt: 1, _id: -1 });
