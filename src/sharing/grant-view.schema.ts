import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';

/**
 * One successful viewer read of an asset's bytes through a grant. Counted as share links' views
 * are (LinkView): one inserted document each, since a counter's `$inc` loses concurrent views on
 * FerretDB.
 */
@Schema({ ...schemaOptions('grant_views'), timestamps: false })
export class GrantViewRecord {
  _id: Types.ObjectId;

  /** The platform project (the tenant): added by `tenantOwned`. */
  projectId: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true, immutable: true })
  grantId: Types.ObjectId;

  @Prop({ type: Date, required: true, immutable: true })
  at: Date;
}

export const GrantViewRecordSchema = SchemaFactory.createForClass(GrantViewRecord);
tenantOwned(GrantViewRecordSchema);
// A grant's views are counted through it.
GrantViewRecordSchema.index({ projectId: 1, grantId: 1 });
