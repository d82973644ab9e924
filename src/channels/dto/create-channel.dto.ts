import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsMongoId,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  IsUrl,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

const OBJECT_ID_PATTERN = '^[0-9a-fA-F]{24}$';

/** Optional, but when present it must be valid: an explicit `null` is rejected, not stored. */
const IsOptionalNotNull = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

export class MembershipTierDto {
  @ApiProperty({ example: 'Supporter', maxLength: 100 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Early access to every episode', maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string | null;

  @ApiProperty({ example: 4.99, minimum: 0, description: 'Price per period, in the channel currency' })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  price: number;

  @ApiPropertyOptional({ type: [String], example: ['Early access', 'Badge'], maxItems: 50 })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  features?: string[];
}

export class CreateChannelDto {
  @ApiProperty({
    example: '6650c0ffee0000000000c001',
    pattern: OBJECT_ID_PATTERN,
    description: 'Id of an existing, live (not soft-deleted) client',
  })
  @IsMongoId({ message: 'clientId must be a valid id' })
  clientId: string;

  @ApiProperty({ example: 'Ada Sings', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @ApiProperty({
    example: 'adasings',
    maxLength: 100,
    description: 'Unique across all channels, compared without regard to case; a taken username is 409',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  username: string;

  @ApiProperty({ example: 'https://cdn.example.com/avatars/ada.png', format: 'uri', maxLength: 2048 })
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true }, { message: 'avatarUrl must be an http(s) URL' })
  @MaxLength(2048)
  avatarUrl: string;

  @ApiProperty({ example: 'creator', maxLength: 50, description: 'Free text, for example creator, admin or moderator' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  role: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', pattern: OBJECT_ID_PATTERN },
    example: ['6650c0ffee0000000000d001'],
    default: [],
    maxItems: 1000,
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

  @ApiPropertyOptional({ type: Number, example: 1250.5, default: 0, minimum: 0, description: 'Total revenue' })
  @IsOptionalNotNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  revenue?: number;
}
