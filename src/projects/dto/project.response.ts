import { ApiProperty } from '@nestjs/swagger';
import {
  CONTENT_UPLOAD_TYPES,
  PROJECT_ACCESS,
  PROJECT_STATUSES,
  PROJECT_TYPES,
  SUPPORTED_FEATURES,
  SUPPORTED_FORMATS,
  SUPPORTED_MODES,
} from '../project.schema';

/**
 * The fields that show what a project is, as opposed to how it is managed (its channel, parent,
 * access, status and dates): a creator writes them (with access and status), a viewer reads them.
 */
export const PROJECT_CONTENT_FIELDS = [
  'projectTypeId',
  'subTypeId',
  'primaryTitle',
  'description',
  'portraitImg',
  'landscapeImg',
  'contentUploadType',
  'primaryLanguageId',
  'categoryId',
  'subCategoryId',
  'topicIds',
  'supportedFormats',
  'supportedModes',
  'supportedFeatures',
] as const satisfies readonly (keyof ProjectResponse)[];

export class ProjectResponse {
  @ApiProperty({ example: '6650c0ffee0000000000d001' })
  _id: string;

  @ApiProperty({ example: '6650c0ffee0000000000b001' })
  channelId: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'The parent project; null for a top-level project',
  })
  parentId: string | null;

  @ApiProperty({ enum: PROJECT_TYPES, example: 'album' })
  projectTypeId: string;

  @ApiProperty({ type: String, nullable: true, example: 'jazz' })
  subTypeId: string | null;

  @ApiProperty({ example: 'Blue Hours' })
  primaryTitle: string;

  @ApiProperty({ type: String, nullable: true, example: 'Late-night piano sessions' })
  description: string | null;

  @ApiProperty({ type: String, nullable: true, format: 'uri', example: 'https://cdn.example.com/p/blue-portrait.jpg' })
  portraitImg: string | null;

  @ApiProperty({ type: String, nullable: true, format: 'uri', example: 'https://cdn.example.com/p/blue-landscape.jpg' })
  landscapeImg: string | null;

  @ApiProperty({ enum: CONTENT_UPLOAD_TYPES, nullable: true, example: 'youtube' })
  contentUploadType: string | null;

  @ApiProperty({ enum: PROJECT_ACCESS, example: 'public' })
  access: string;

  @ApiProperty({ enum: PROJECT_STATUSES, example: 'draft' })
  status: string;

  @ApiProperty({ type: String, nullable: true, example: 'en' })
  primaryLanguageId: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'music' })
  categoryId: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'jazz' })
  subCategoryId: string | null;

  @ApiProperty({ type: [String], example: ['piano', 'night'] })
  topicIds: string[];

  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...SUPPORTED_FORMATS] }, example: ['audio'] })
  supportedFormats: string[];

  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...SUPPORTED_MODES] }, example: ['listen'] })
  supportedModes: string[];

  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: [...SUPPORTED_FEATURES] },
    example: ['comments', 'like'],
  })
  supportedFeatures: string[];

  @ApiProperty({ format: 'date-time', example: '2024-05-24T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2024-05-24T10:00:00.000Z' })
  updatedAt: string;
}

export class ProjectDeletedResponse {
  @ApiProperty({ example: 'Project deleted' })
  message: string;
}

/** One project of a tree: enough to draw it. */
export class ProjectTreeNodeResponse {
  @ApiProperty({ example: '6650c0ffee0000000000d002' })
  _id: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '6650c0ffee0000000000d001',
    description: "The node's parent; null for the tree's root when it is top-level",
  })
  parentId: string | null;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: 3,
    example: 1,
    description: 'Levels below the project the tree was asked for (0: that project)',
  })
  depth: number;

  @ApiProperty({ example: 'Side A' })
  primaryTitle: string;

  @ApiProperty({ enum: PROJECT_TYPES, example: 'album' })
  projectTypeId: string;

  @ApiProperty({ enum: PROJECT_STATUSES, example: 'draft' })
  status: string;
}

export class ProjectTreeResponse {
  @ApiProperty({
    type: [ProjectTreeNodeResponse],
    description: 'The project first, then each level below it in turn (each oldest first), to the bottom',
  })
  nodes: ProjectTreeNodeResponse[];
}
