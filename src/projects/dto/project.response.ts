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

export class ProjectResponse {
  @ApiProperty({ example: '6650c0ffee0000000000d001' })
  _id: string;

  @ApiProperty({ example: '6650c0ffee0000000000b001' })
  channelId: string;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'The parent project; null: top-level' })
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

  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...SUPPORTED_FEATURES] }, example: ['comments', 'like'] })
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
