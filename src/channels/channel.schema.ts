import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';
import { recordsEvents } from '../tenancy/outbox.plugin';

/** A paid membership level of a channel. Some tiers in use carry only a name and a price. */
@Schema({ _id: false, versionKey: false })
export class MembershipTier {
  @Prop({ type: String, required: true })
  name: string;

  @Prop({ type: String, default: undefined })
  description?: string | null;

  @Prop({ type: Number, required: true, min: 0 })
  price: number;

  @Prop({ type: [String], default: undefined })
  features?: string[];
}
export const MembershipTierSchema = SchemaFactory.createForClass(MembershipTier);

@Schema(schemaOptions('channels'))
export class Channel {
  _id: Types.ObjectId;

  /** The platform project that owns the record: added by `tenantOwned`, set on create, never returned. */
  projectId: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  clientId: Types.ObjectId;

  @Prop({ type: String, required: true })
  name: string;

  @Prop({ type: String, required: true })
  username: string;

  /**
   * The username folded to lower case: uniqueness is case-insensitive (`Ada` and `ada` are the same
   * channel name to a reader) and per platform project. Kept in its own field because the database
   * offers no collation. Never returned.
   */
  @Prop({ type: String, required: true })
  usernameKey: string;

  @Prop({ type: String, required: true })
  avatarUrl: string;

  @Prop({ type: String, required: true })
  role: string;

  @Prop({ type: [MongooseSchema.Types.ObjectId], default: [] })
  projectIds: Types.ObjectId[];

  @Prop({ type: Boolean, default: false })
  membershipsEnabled: boolean;

  @Prop({ type: [MembershipTierSchema], default: [] })
  membershipTiers: MembershipTier[];

  @Prop({ type: Boolean, default: false })
  monetizationEnabled: boolean;

  @Prop({ type: Number, default: 0, min: 0 })
  revenue: number;

  createdAt: Date;
  updatedAt: Date;
}

export const ChannelSchema = SchemaFactory.createForClass(Channel);
tenantOwned(ChannelSchema);
recordsEvents(ChannelSchema);

// A username is unique inside one platform project; two projects may each have an `ada`.
ChannelSchema.index({ projectId: 1, usernameKey: 1 }, { unique: true });
// Lists by client, and the "does this client still own channels" check before a client is hard-deleted.
ChannelSchema.index({ projectId: 1, clientId: 1, _id: 1 });

export function usernameKey(username: string): string {
  return username.toLowerCase();
}
