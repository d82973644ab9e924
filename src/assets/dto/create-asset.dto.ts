import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { IsSafeFileName } from '../../common/validators/file-name';
import { IsOptionalNotNull } from '../../common/validators/is-optional-not-null';
import { ASSET_KINDS, type AssetKind } from '../asset.schema';
import { FILE_NAME_PATTERN } from '../asset-rules';
import { NotBlankText } from '../../common/validators/trimmed-text';

export class CreateAssetDto {
  @ApiProperty({ enum: ASSET_KINDS, example: 'image' })
  @IsIn(ASSET_KINDS, { message: `kind must be one of: ${ASSET_KINDS.join(', ')}` })
  kind: AssetKind;

  @NotBlankText(200, 'Cover')
  title: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'The album cover, front', maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiProperty({
    description:
      'A file name, without any path (400 otherwise). No format, bidirectional or control characters (U+202E, U+009B, U+2028...), no Windows device name ' +
      '(CON, PRN, AUX, NUL, COM1-9, LPT1-9, with or without an extension), not only spaces or dots: 422 naming `fileName`.',
    example: 'cover.png',
    maxLength: 255,
    pattern: FILE_NAME_PATTERN.source,
  })
  @IsString()
  @MaxLength(255)
  @Matches(FILE_NAME_PATTERN, {
    message: 'fileName must be a file name without a path (no / or \\, no control characters, not . or ..)',
  })
  @IsSafeFileName()
  fileName: string;

  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'Bytes the upload will hold, exactly; at most `ASSET_MAX_BYTES` (5 GiB by default)',
    example: 48213,
  })
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  size: number;

  @ApiProperty({
    example: 'image/png',
    maxLength: 255,
    pattern: '^[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]*/[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]*(\\s*;.*)?$',
    description: "The file's media type; the bytes must agree with it and with `kind`",
  })
  @IsString()
  @MaxLength(255)
  @Matches(/^[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]*\/[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]*(\s*;.*)?$/, {
    message: 'mimeType must be a media type such as image/png',
  })
  mimeType: string;

  @ApiPropertyOptional({
    description: "The SHA-256 of the file (hex), compared with the stored bytes' once uploaded",
    pattern: '^[0-9a-fA-F]{64}$',
    minLength: 64,
    maxLength: 64,
  })
  @IsOptionalNotNull()
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'sha256 must be 64 hexadecimal digits' })
  sha256?: string;
}
