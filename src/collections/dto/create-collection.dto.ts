import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';

/** Optional, but when present it must be a real value: `null` is validated (and refused) like any other. */
const present = (_object: object, value: unknown) => value !== undefined;
const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class CreateCollectionDto {
  @ApiProperty({ example: 'Starter', minLength: 1, maxLength: 200 })
  @Transform(trim)
  @IsString()
  @IsNotEmpty({ message: 'name must not be empty' })
  @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ example: 'Entry-level bundle of endpoints', maxLength: 5000 })
  @ValidateIf(present)
  @IsString()
  @MaxLength(5000)
  description?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, example: 12 })
  @ValidateIf(present)
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  numberOfClients?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, example: 340 })
  @ValidateIf(present)
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  numberOfUsers?: number;

  @ApiPropertyOptional({ example: 'internal analytics', maxLength: 1000 })
  @ValidateIf(present)
  @IsString()
  @MaxLength(1000)
  usage?: string;

  @ApiPropertyOptional({ type: Number, minimum: 0, example: 49.99 })
  @ValidateIf(present)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  pricing?: number;

  @ApiPropertyOptional({ type: 'integer', isArray: true, maxItems: 1000, example: [1, 2, 3] })
  @ValidateIf(present)
  @IsArray()
  @ArrayMaxSize(1000)
  @IsInt({ each: true })
  endpoints?: number[];
}
