import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';

export const UPLOAD_STAGES = ['open', 'processing'] as const;
export type UploadStage = (typeof UPLOAD_STAGES)[number];

/**
 * An asset's upload while it is open or being processed: what a one-time upload URL, the expiry
 * sweep and the processing workers, which act before any tenant is known, need to find the asset's
 * tenant. Keyed by the asset's id (an ObjectId, unique across every tenant); removed once the asset
 * is `ready`, `errored` or deleted.
 *
 * Not tenant-owned, on purpose: it is read by the upload token or by its stage across every tenant,
 * and only ever leads to the asset through the tenant it names.
 */
@Schema({ ...schemaOptions('asset_uploads', ['tokenHash']), timestamps: false })
export class AssetUpload {
  /** The asset's id. */
  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  _id: Types.ObjectId;

  @Prop({ type: String, required: true })
  accountId: string;

  /** The platform project (tenant) of the asset. */
  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  projectId: Types.ObjectId;

  /** SHA-256 of the upload URL's token (hex): the token itself is never stored. */
  @Prop({ type: String, required: true })
  tokenHash: string;

  @Prop({ type: String, required: true, enum: UPLOAD_STAGES, default: 'open' })
  stage: UploadStage;

  @Prop({ type: Date, required: true })
  expiresAt: Date;

  /**
   * When the upload's last byte landed and the ticket became `processing`; null while it is open,
   * and absent on tickets written before it was kept (read as long ago).
   */
  @Prop({ type: Date, default: null })
  processingSince: Date | null;

  /** Tries at processing that missed their deadline (AssetProcessor); the asset is `errored` after a few. */
  @Prop({ type: Number, default: 0 })
  stalledTries: number;
}

export const AssetUploadSchema = SchemaFactory.createForClass(AssetUpload);
AssetUploadSchema.index({ stage: 1, expiresAt: 1 });
