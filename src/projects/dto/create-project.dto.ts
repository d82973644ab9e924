import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsMongoId,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MaxLength,
} from 'class-validator';
import { IsOptionalNotNull } from '../../common/validators/is-optional-not-null';
import { OBJECT_ID_PATTERN } from '../../common/pipes/object-id';
import {
  CONTENT_UPLOAD_TYPES,
  type ContentUploadType,
  MAX_TREE_DEPTH,
  PROJECT_ACCESS,
  PROJECT_STATUSES,
  PROJECT_TYPES,
  type ProjectAccess,
  type ProjectStatus,
  type ProjectType,
  SUPPORTED_FEATURES,
  SUPPORTED_FORMATS,
  SUPPORTED_MODES,
  type SupportedFeature,
  type SupportedFormat,
  type SupportedMode,
} from '../project.schema';
import { NotBlankText } from '../../common/validators/trimmed-text';

const oneOf = (field: string, values: readonly string[]) => `${field} must be one of: ${values.join(', ')}`;
const eachOneOf = (field: string, values: readonly string[]) =>
  `each value in ${field} must be one of: ${values.join(', ')}`;
const HTTP_URL = { protocols: ['http', 'https'], require_protocol: true };
const HTTP_URL_PATTERN = '^[hH][tT][tT][pP][sS]?://';
const LANGUAGE_CODE = '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$';

/**
 * The project fields. Optional text fields take `null` to mean "none" (how they read back when
 * unset); `access`, `status` and the lists have defaults instead and do not take `null`.
 */
export class CreateProjectDto {
  @ApiPropertyOptional({
    pattern: OBJECT_ID_PATTERN,
    description: 'Optional on create; when sent it must equal the channel in the path',
  })
  @IsOptionalNotNull()
  @IsMongoId({ message: 'channelId must be a valid id' })
  channelId?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    pattern: OBJECT_ID_PATTERN,
    description:
      'The parent project, of the same channel (422 otherwise; 404 when it does not exist); null or absent: a top-level project. ' +
      `At most ${MAX_TREE_DEPTH} levels (422 beyond).`,
  })
  @IsOptional()
  @IsMongoId({ message: 'parentId must be a valid id' })
  parentId?: string | null;

  @ApiProperty({ enum: PROJECT_TYPES, example: 'album' })
  @IsIn(PROJECT_TYPES, { message: oneOf('projectTypeId', PROJECT_TYPES) })
  projectTypeId: ProjectType;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'jazz',
    maxLength: 100,
    description: 'Free text, for example a music subtype',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  subTypeId?: string | null;

  @NotBlankText(300, 'Blue Hours')
  primaryTitle: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Late-night piano sessions', maxLength: 10000 })
  @IsOptional()
  @IsString()
  @MaxLength(10_000)
  description?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    format: 'uri',
    pattern: HTTP_URL_PATTERN,
    example: 'https://cdn.example.com/p/blue-portrait.jpg',
    maxLength: 2048,
  })
  @IsOptional()
  @IsUrl(HTTP_URL, { message: 'portraitImg must be an http(s) URL' })
  @MaxLength(2048)
  portraitImg?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    format: 'uri',
    pattern: HTTP_URL_PATTERN,
    example: 'https://cdn.example.com/p/blue-landscape.jpg',
    maxLength: 2048,
  })
  @IsOptional()
  @IsUrl(HTTP_URL, { message: 'landscapeImg must be an http(s) URL' })
  @MaxLength(2048)
  landscapeImg?: string | null;

  @ApiPropertyOptional({ enum: CONTENT_UPLOAD_TYPES, nullable: true, example: 'youtube' })
  @IsOptional()
  @IsIn(CONTENT_UPLOAD_TYPES, { message: oneOf('contentUploadType', CONTENT_UPLOAD_TYPES) })
  contentUploadType?: ContentUploadType | null;

  @ApiPropertyOptional({ enum: PROJECT_ACCESS, default: 'public' })
  @IsOptionalNotNull()
  @IsIn(PROJECT_ACCESS, { message: oneOf('access', PROJECT_ACCESS) })
  access?: ProjectAccess;

  @ApiPropertyOptional({ enum: PROJECT_STATUSES, default: 'draft' })
  @IsOptionalNotNull()
  @IsIn(PROJECT_STATUSES, { message: oneOf('status', PROJECT_STATUSES) })
  status?: ProjectStatus;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'en',
    maxLength: 35,
    pattern: LANGUAGE_CODE,
    description: 'Language code (BCP 47), such as en or pt-BR',
  })
  @IsOptional()
  @IsString()
  @MaxLength(35)
  @Matches(new RegExp(LANGUAGE_CODE), { message: 'primaryLanguageId must be a language code such as en or pt-BR' })
  primaryLanguageId?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'music', maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  categoryId?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'jazz', maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  subCategoryId?: string | null;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', maxLength: 100 },
    default: [],
    example: ['piano', 'night'],
    maxItems: 100,
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  topicIds?: string[];

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...SUPPORTED_FORMATS] },
    maxItems: 100,
    default: [],
    example: ['audio'],
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(100)
  @IsIn(SUPPORTED_FORMATS, { each: true, message: eachOneOf('supportedFormats', SUPPORTED_FORMATS) })
  supportedFormats?: SupportedFormat[];

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...SUPPORTED_MODES] },
    maxItems: 100,
    default: [],
    example: ['listen'],
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(100)
  @IsIn(SUPPORTED_MODES, { each: true, message: eachOneOf('supportedModes', SUPPORTED_MODES) })
  supportedModes?: SupportedMode[];

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...SUPPORTED_FEATURES] },
    maxItems: 100,
    default: [],
    example: ['comments', 'like'],
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(100)
  @IsIn(SUPPORTED_FEATURES, { each: true, message: eachOneOf('supportedFeatures', SUPPORTED_FEATURES) })
  supportedFeatures?: SupportedFeature[];
}
