import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { tenantOwned } from '../tenancy/tenant-owned.plugin';
import { recordsEvents } from '../tenancy/outbox.plugin';

export const PROJECT_TYPES = ['project', 'show', 'album', 'podcasts', 'playlist'] as const;
export const CONTENT_UPLOAD_TYPES = ['serverVideo', 'externalUrl', 'youtube'] as const;
export const PROJECT_ACCESS = ['public', 'permissions', 'linkPrivate'] as const;
export const PROJECT_STATUSES = ['draft', 'published', 'archived'] as const;
export const SUPPORTED_FORMATS = ['audio', 'video', 'text'] as const;
export const SUPPORTED_MODES = ['read', 'listen', 'watch', 'chat', 'go'] as const;
export const SUPPORTED_FEATURES = [
  'comments',
  'remix',
  'like',
  'likeDislikeVotes',
  'polls',
  'download',
  'translate',
  'entTranscribe',
  'voiceover',
] as const;

export type ProjectType = (typeof PROJECT_TYPES)[number];
export type ContentUploadType = (typeof CONTENT_UPLOAD_TYPES)[number];
export type ProjectAccess = (typeof PROJECT_ACCESS)[number];
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];
export type SupportedFormat = (typeof SUPPORTED_FORMATS)[number];
export type SupportedMode = (typeof SUPPORTED_MODES)[number];
export type SupportedFeature = (typeof SUPPORTED_FEATURES)[number];

@Schema(schemaOptions('projects'))
export class Project {
  _id: Types.ObjectId;

  /** The platform project that owns the record: added by `tenantOwned`, set on create, never returned. */
  projectId: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  channelId: Types.ObjectId;

  /** The parent project (of the same channel), or null for a top-level project. */
  @Prop({ type: MongooseSchema.Types.ObjectId, default: null })
  parentId: Types.ObjectId | null;

  @Prop({ type: String, required: true, enum: PROJECT_TYPES })
  projectTypeId: ProjectType;

  @Prop({ type: String, default: null })
  subTypeId: string | null;

  @Prop({ type: String, required: true })
  primaryTitle: string;

  @Prop({ type: String, default: null })
  description: string | null;

  @Prop({ type: String, default: null })
  portraitImg: string | null;

  @Prop({ type: String, default: null })
  landscapeImg: string | null;

  @Prop({ type: String, enum: CONTENT_UPLOAD_TYPES, default: null })
  contentUploadType: ContentUploadType | null;

  @Prop({ type: String, required: true, enum: PROJECT_ACCESS, default: 'public' })
  access: ProjectAccess;

  @Prop({ type: String, required: true, enum: PROJECT_STATUSES, default: 'draft' })
  status: ProjectStatus;

  @Prop({ type: String, default: null })
  primaryLanguageId: string | null;

  @Prop({ type: String, default: null })
  categoryId: string | null;

  @Prop({ type: String, default: null })
  subCategoryId: string | null;

  @Prop({ type: [String], default: [] })
  topicIds: string[];

  @Prop({ type: [String], enum: SUPPORTED_FORMATS, default: [] })
  supportedFormats: SupportedFormat[];

  @Prop({ type: [String], enum: SUPPORTED_MODES, default: [] })
  supportedModes: SupportedMode[];

  @Prop({ type: [String], enum: SUPPORTED_FEATURES, default: [] })
  supportedFeatures: SupportedFeature[];

  /**
   * Set when a cascade that takes the project began (`project_deletions`): from then on it is read,
   * listed and shared by nobody, and nothing is created under it, while the cascade removes what
   * hangs off it and then the record.
   */
  @Prop({ type: Date, default: null })
  deletingAt: Date | null;

  createdAt: Date;
  updatedAt: Date;
}

export const ProjectSchema = SchemaFactory.createForClass(Project);
// `projectId` is the platform project (the tenant); this record is a content project.
tenantOwned(ProjectSchema);
recordsEvents(ProjectSchema);

// Every list is scoped to one platform project and one channel, so each filterable field is indexed
// behind both; the first one also serves the plain list, its paging order and the cascade on channel delete.
ProjectSchema.index({ projectId: 1, channelId: 1, _id: 1 });
ProjectSchema.index({ projectId: 1, channelId: 1, status: 1 });
ProjectSchema.index({ projectId: 1, channelId: 1, projectTypeId: 1 });
ProjectSchema.index({ projectId: 1, channelId: 1, access: 1 });
// A project's children (the children list, the tree read level by level, the delete's "has children" check).
ProjectSchema.index({ projectId: 1, parentId: 1, _id: 1 });

/** A project, its sub-project, and so on: at most this many levels. */
export const MAX_TREE_DEPTH = 4;
/** The most nodes `GET /projects/:id/tree` answers; a bigger tree is read by paging the children. */
export const MAX_TREE_NODES = 1000;
