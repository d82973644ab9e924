import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';

export const CASCADE_KINDS = ['project', 'channel'] as const;
export type CascadeKind = (typeof CASCADE_KINDS)[number];

/**
 * One cascade of content projects (a project with its subtree, or a channel's projects), written
 * before anything of it is removed and removed once all of it is gone: what a retried delete or
 * the sweep of any instance needs to finish a cascade whose instance stopped half-way.
 *
 * Not tenant-owned, on purpose: the sweep reads it across every tenant, and it leads to the
 * projects only through the tenant it names.
 */
@Schema({ ...schemaOptions('project_deletions'), timestamps: { createdAt: true, updatedAt: false } })
export class ProjectDeletion {
  /** The root project's id, or the channel's for a channel's cascade: one cascade per root. */
  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  _id: Types.ObjectId;

  @Prop({ type: String, required: true, enum: CASCADE_KINDS })
  kind: CascadeKind;

  @Prop({ type: String, required: true })
  accountId: string;

  /** The platform project (tenant) of the projects. */
  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  projectId: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  channelId: Types.ObjectId;

  /** Every project the cascade takes, each above its sub-projects (the root first). */
  @Prop({ type: [MongooseSchema.Types.ObjectId], required: true })
  projectIds: Types.ObjectId[];

  /** When the sweep may next take it: a fresh one is left to its request, a failed one backs off. */
  @Prop({ type: Date, required: true })
  dueAt: Date;

  @Prop({ type: Number, default: 0 })
  attempts: number;

  @Prop({ type: String, default: null })
  lastError: string | null;

  createdAt: Date;
}

export const ProjectDeletionSchema = SchemaFactory.createForClass(ProjectDeletion);
ProjectDeletionSchema.index({ dueAt: 1 });
