import { ApiProperty } from '@nestjs/swagger';
import { CONTENT_UPLOAD_TYPES, PROJECT_TYPES, SUPPORTED_FEATURES, SUPPORTED_FORMATS, SUPPORTED_MODES } from '../../projects/project.schema';

/**
 * A project as a viewer sees it: what it shows, never how it is managed (no channel, access,
 * status, or dates of editing). Every viewer answer is a published project the caller may see.
 */
export class ViewerProjectResponse {
  @ApiProperty({ example: '6650c0ffee0000000000d001' })
  id: string;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'The parent project (visible too); null: top-level' })
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
}
