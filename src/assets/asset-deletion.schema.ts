import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';

/**
 * An asset's own delete (`DELETE /assets/:id`), written before anything of it is removed and
 * removed once its record is gone: what the sweep needs to finish a delete whose instance stopped
 * half-way. Keyed by the asset's id. A content project's cascade needs none: its own record
 * (`project_deletions`) lists the projects whose assets go.
 *
 * Not tenant-owned, on purpose: the sweep reads it across every tenant, and it leads to the asset
 * only through the tenant it names.
 */
@Schema({ ...schemaOptions('asset_deletions'), timestamps: { createdAt: true, updatedAt: false } })
export class AssetDeletion {
  /** The asset's id. */
  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  _id: Types.ObjectId;

  @Prop({ type: String, required: true })
  accountId: string;

  /** The platform project (tenant) of the asset. */
  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  projectId: Types.ObjectId;

  /** When the sweep may next try it: a fresh one is left to its request, a failed one backs off. */
  @Prop({ type: Date, required: true })
  dueAt: Date;

  @Prop({ type: Number, default: 0 })
  attempts: number;

  createdAt: Date;
}

export const AssetDeletionSchema = SchemaFactory.createForClass(AssetDeletion);
AssetDeletionSchema.index({ dueAt: 1 });
