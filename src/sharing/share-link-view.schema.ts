import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';

/**
 * One successful viewer read through a share link. Views are counted by inserting one document
 * each, then counting: an insert is atomic on MongoDB and FerretDB alike, where a counter's `$inc`
 * is a read-modify-write on FerretDB that loses concurrent views (the viewers e2e test shows it).
 */
@Schema({ ...schemaOptions('share_link_views'), timestamps: false })
export class LinkView {
  _id: Types.ObjectId;

  /** The platform project (the tenant): added by `tenantOwned`. */
  projectId: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true, immutable: true })
  shareLinkId: Types.ObjectId;

  @Prop({ type: Date, required: true, immutable: true })
  at: Date;
}

export const LinkViewSchema = SchemaFactory.createForClass(LinkView);
tenantOwned(LinkViewSchema);
// A link's views are counted through it.
LinkViewSchema.index({ projectId: 1, shareLinkId: 1 });
