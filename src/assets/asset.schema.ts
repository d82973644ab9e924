import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { recordsEvents } from '../tenancy/outbox.plugin';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';

export const ASSET_KINDS = ['video', 'audio', 'image', 'text'] as const;
export type AssetKind = (typeof ASSET_KINDS)[number];

/** `waiting` (no byte yet) -> `uploading` -> `processing` -> `ready` | `errored`. */
export const ASSET_STATUSES = ['waiting', 'uploading', 'processing', 'ready', 'errored'] as const;
export type AssetStatus = (typeof ASSET_STATUSES)[number];

export const ASSET_ERROR_CODES = ['upload_expired', 'type_mismatch', 'checksum_mismatch', 'unreadable'] as const;
export type AssetErrorCode = (typeof ASSET_ERROR_CODES)[number];

export interface AssetError {
  code: AssetErrorCode;
  message: string;
}

@Schema(schemaOptions('assets'))
export class Asset {
  _id: Types.ObjectId;

  /** The platform project (the tenant): added by `tenantOwned`, never returned. */
  projectId: Types.ObjectId;

  /** The content project the asset belongs to; answered as `projectId`. */
  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  contentProjectId: Types.ObjectId;

  @Prop({ type: String, required: true, enum: ASSET_KINDS })
  kind: AssetKind;

  @Prop({ type: String, required: true })
  title: string;

  @Prop({ type: String, default: null })
  description: string | null;

  @Prop({ type: String, required: true })
  fileName: string;

  @Prop({ type: Number, required: true })
  size: number;

  /** As declared by the creator; `contentType` is what the bytes turned out to be. */
  @Prop({ type: String, required: true })
  mimeType: string;

  /** The SHA-256 the creator declared (hex), compared once the bytes are in; null when none was given. */
  @Prop({ type: String, default: null })
  declaredSha256: string | null;

  @Prop({ type: String, required: true, enum: ASSET_STATUSES, default: 'waiting' })
  status: AssetStatus;

  @Prop({ type: MongooseSchema.Types.Mixed, default: null })
  error: AssetError | null;

  /** Computed from the stored bytes. */
  @Prop({ type: String, default: null })
  sha256: string | null;

  /** Sniffed from the stored bytes. */
  @Prop({ type: String, default: null })
  contentType: string | null;

  @Prop({ type: Number, default: null })
  width: number | null;

  @Prop({ type: Number, default: null })
  height: number | null;

  @Prop({ type: Number, default: null })
  durationSeconds: number | null;

  @Prop({ type: Boolean, default: false })
  hasThumbnail: boolean;

  /**
   * Set when the asset's delete began (its own, or its content project's): from then on it is
   * neither listed nor served, and its bytes go before its record, which goes last.
   */
  @Prop({ type: Date, default: null })
  deletingAt: Date | null;

  /** When the upload must be finished by. */
  @Prop({ type: Date, required: true })
  uploadExpiresAt: Date;

  /**
   * The fencing token of the processing lease (`asset-processing:<id>`) whose holder last took the
   * asset up: its outcome is written only by that holder, so one taken over writes nothing.
   */
  @Prop({ type: Number, default: null })
  processingFence: number | null;

  createdAt: Date;
  updatedAt: Date;
}

export const AssetSchema = SchemaFactory.createForClass(Asset);
tenantOwned(AssetSchema);
recordsEvents(AssetSchema);

// Lists go by content project, newest first, and so does the cascade of a project delete.
AssetSchema.index({ projectId: 1, contentProjectId: 1, _id: -1 });
