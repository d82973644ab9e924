import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { recordsEvents } from '../tenancy/outbox.plugin';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';

/** A channel's roles, weakest first: each may do what the ones before it may. */
export const CHANNEL_ROLES = ['viewer', 'editor', 'manager', 'owner'] as const;
export type ChannelRole = (typeof CHANNEL_ROLES)[number];

/** Whether `role` is `needed` or above. */
export function roleAtLeast(role: ChannelRole, needed: ChannelRole): boolean {
  return CHANNEL_ROLES.indexOf(role) >= CHANNEL_ROLES.indexOf(needed);
}

/** A member of the account with a role in one channel, until `expiresAt` when it has one. */
@Schema(schemaOptions('channel_collaborators'))
export class Collaborator {
  _id: Types.ObjectId;

  /** The platform project that owns the record: added by `tenantOwned`, set on create, never returned. */
  projectId: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  channelId: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  userId: Types.ObjectId;

  @Prop({ type: String, required: true, enum: CHANNEL_ROLES })
  role: ChannelRole;

  /** After this the user counts as no collaborator; null: never. */
  @Prop({ type: Date, default: null })
  expiresAt: Date | null;

  createdAt: Date;
  updatedAt: Date;
}

export const CollaboratorSchema = SchemaFactory.createForClass(Collaborator);
tenantOwned(CollaboratorSchema);
recordsEvents(CollaboratorSchema);

// One record per user and channel (an add of a present user is 409), and the lookup of a write's
// authorization; its prefix also serves the channel's list in user order and the channel-delete cascade.
CollaboratorSchema.index({ projectId: 1, channelId: 1, userId: 1 }, { unique: true });
