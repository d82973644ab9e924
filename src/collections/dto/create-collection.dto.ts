import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsInt, IsNumber, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsOptionalNotNull } from '../../common/validators/is-optional-not-null';
import { NotBlankText } from '../../common/validators/trimmed-text';

const NAME_MAX = 200;
/** Counts and endpoint numbers stay within the integers JSON clients read back exactly. */
const INT_MAX = Number.MAX_SAFE_INTEGER;
export const PRICING_MAX = 1_000_000_000;

export class CreateCollectionDto {
  @NotBlankText(NAME_MAX, 'Starter')
  name: string;

  @ApiPropertyOptional({ example: 'Entry-level bundle of endpoints', maxLength: 5000 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(5000)
  description?: string;

  @ApiPropertyOptional({ type: 'integer', format: 'int64', minimum: 0, maximum: INT_MAX, example: 12 })
  @IsOptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(INT_MAX)
  numberOfClients?: number;

  @ApiPropertyOptional({ type: 'integer', format: 'int64', minimum: 0, maximum: INT_MAX, example: 340 })
  @IsOptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(INT_MAX)
  numberOfUsers?: number;

  @ApiPropertyOptional({ example: 'internal analytics', maxLength: 1000 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(1000)
  usage?: string;

  @ApiPropertyOptional({ type: Number, minimum: 0, maximum: PRICING_MAX, example: 49.99 })
  @IsOptionalNotNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(PRICING_MAX)
  pricing?: number;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'integer', format: 'int64', minimum: -INT_MAX, maximum: INT_MAX },
    maxItems: 1000,
    example: [1, 2, 3],
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsInt({ each: true })
  @Min(-INT_MAX, { each: true })
  @Max(INT_MAX, { each: true })
  endpoints?: number[];
}
