import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { recordsEvents } from '../tenancy/outbox.plugin';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';

/**
 * A link that shows a content project (and its sub-projects) to whoever holds its token. The token
 * is never stored: only its SHA-256 (`hash`, looked up once per viewer read through its unique
 * index); the optional password only as its bcrypt hash, read only when a viewer presents the link.
 */
@Schema(schemaOptions('share_links', ['hash', 'passwordHash']))
export class ShareLink {
  _id: Types.ObjectId;

  /** The platform project (the tenant): added by `tenantOwned`. */
  projectId: Types.ObjectId;

  /** The content project the link shows. */
  @Prop({ type: MongooseSchema.Types.ObjectId, required: true, immutable: true })
  contentProjectId: Types.ObjectId;

  @Prop({ type: String, required: true, immutable: true })
  hash: string;

  /** The first characters of the token, so an owner can tell links apart. */
  @Prop({ type: String, required: true, immutable: true })
  start: string;

  @Prop({ type: String, default: null, select: false })
  passwordHash: string | null;

  @Prop({ type: Date, default: null })
  expiresAt: Date | null;

  @Prop({ type: Date, default: null })
  revokedAt: Date | null;

  createdAt: Date;
  updatedAt: Date;
}

export const ShareLinkSchema = SchemaFactory.createForClass(ShareLink);
tenantOwned(ShareLinkSchema);
recordsEvents(ShareLinkSchema);
ShareLinkSchema.index({ hash: 1 }, { unique: true });
// A project's links, newest first.
ShareLinkSchema.index({ projectId: 1, contentProjectId: 1, _id: -1 });
