import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { recordsEvents } from '../tenancy/outbox.plugin';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';

export const GRANT_ROLES = ['viewer', 'editor'] as const;
export type GrantRole = (typeof GRANT_ROLES)[number];

/**
 * A person's access to a content project (and its sub-projects): a user by id, or an email address,
 * which names whoever signs up (or has signed up) with it, matched when they read.
 */
@Schema(schemaOptions('grants'))
export class Grant {
  _id: Types.ObjectId;

  /** The platform project (the tenant): added by `tenantOwned`. */
  projectId: Types.ObjectId;

  /** The content project the grant opens. */
  @Prop({ type: MongooseSchema.Types.ObjectId, required: true, immutable: true })
  contentProjectId: Types.ObjectId;

  /** The user granted; null for a grant to an email. */
  @Prop({ type: MongooseSchema.Types.ObjectId, default: null, immutable: true })
  userId: Types.ObjectId | null;

  /** Lower-case: for a grant to an email, the address; for a grant to a user, null. */
  @Prop({ type: String, default: null, immutable: true })
  email: string | null;

  @Prop({ type: String, enum: GRANT_ROLES, required: true })
  role: GrantRole;

  @Prop({ type: Date, default: null })
  expiresAt: Date | null;

  @Prop({ type: Date, default: null })
  revokedAt: Date | null;

  createdAt: Date;
  updatedAt: Date;
}

export const GrantSchema = SchemaFactory.createForClass(Grant);
tenantOwned(GrantSchema);
recordsEvents(GrantSchema);
// A project's grants, newest first.
GrantSchema.index({ projectId: 1, contentProjectId: 1, _id: -1 });
// A viewer's grants, by user or by email.
GrantSchema.index({ projectId: 1, userId: 1 });
GrantSchema.index({ projectId: 1, email: 1 });
