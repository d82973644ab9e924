import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsMongoId,
  IsNumber,
  IsOptional,
  IsString,
  IsUrl,
  MaxLength,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsOptionalNotNull } from '../../common/validators/is-optional-not-null';
import { OBJECT_ID_PATTERN } from '../../common/pipes/object-id';
import { NotBlankText } from '../../common/validators/trimmed-text';

/** Bounds on money, so every stored amount reads back as the plain number it was. */
export const TIER_PRICE_MAX = 1_000_000;
export const REVENUE_MAX = 1_000_000_000_000;
const HTTP_URL_PATTERN = '^[hH][tT][tT][pP][sS]?://';

export class MembershipTierDto {
  @NotBlankText(100, 'Supporter')
  name: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Early access to every episode', maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string | null;

  @ApiProperty({
    example: 4.99,
    minimum: 0,
    maximum: TIER_PRICE_MAX,
    description: 'Price per period, in the channel currency',
  })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(TIER_PRICE_MAX)
  price: number;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', maxLength: 200 },
    example: ['Early access', 'Badge'],
    maxItems: 50,
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  features?: string[];
}

export class CreateChannelDto {
  @ApiProperty({
    pattern: OBJECT_ID_PATTERN,
    description: 'Id of an existing, live (not soft-deleted) client of the same platform project',
  })
  @IsMongoId({ message: 'clientId must be a valid id' })
  clientId: string;

  @NotBlankText(200, 'Ada Sings')
  name: string;

  @NotBlankText(
    100,
    'adasings',
    'Unique among the channels of the platform project, compared without regard to case; a taken username is 409',
  )
  username: string;

  @ApiProperty({
    example: 'https://cdn.example.com/avatars/ada.png',
    format: 'uri',
    pattern: HTTP_URL_PATTERN,
    maxLength: 2048,
    description: 'An http(s) URL',
  })
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true }, { message: 'avatarUrl must be an http(s) URL' })
  @MaxLength(2048)
  avatarUrl: string;

  @NotBlankText(50, 'creator', 'Free text, for example creator, admin or moderator')
  role: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', pattern: OBJECT_ID_PATTERN },
    default: [],
    maxItems: 1000,
    description:
      "Ids of content projects of the request's platform project; any other id (another tenant's included) is 400",
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsMongoId({ each: true, message: 'each value in projectIds must be a valid id' })
  projectIds?: string[];

  @ApiPropertyOptional({ type: Boolean, default: false })
  @IsOptionalNotNull()
  @IsBoolean()
  membershipsEnabled?: boolean;

  @ApiPropertyOptional({ type: [MembershipTierDto], default: [], maxItems: 50 })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => MembershipTierDto)
  membershipTiers?: MembershipTierDto[];

  @ApiPropertyOptional({ type: Boolean, default: false })
  @IsOptionalNotNull()
  @IsBoolean()
  monetizationEnabled?: boolean;

  @ApiPropertyOptional({
    type: Number,
    example: 1250.5,
    default: 0,
    minimum: 0,
    maximum: REVENUE_MAX,
    description: 'Total revenue',
  })
  @IsOptionalNotNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(REVENUE_MAX)
  revenue?: number;
}
