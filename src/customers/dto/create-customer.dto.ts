import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsEmail,
  IsIn,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { AddressDto, ApiAddress } from '../../common/dto/address.dto';
import { ApiCountryCode } from '../../common/validators/country-code';
import { NOT_BLANK_PATTERN } from '../../common/validators/trimmed-text';

/** Optional, but when present it must be a real value: `null` is validated (and refused) like any other. */
const present = (_object: object, value: unknown) => value !== undefined;
const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export const BALANCE_LIMIT = 1e12;

export class CreateCustomerDto {
  @ApiProperty({ example: 'jenny.rosen@example.com', format: 'email', maxLength: 254 })
  @Transform(trim)
  @IsEmail({}, { message: 'email must be an email' })
  @MaxLength(254)
  email: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'Jenny',
    minLength: 1,
    maxLength: 100,
    pattern: NOT_BLANK_PATTERN,
    default: null,
  })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  firstName?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'Rosen',
    minLength: 1,
    maxLength: 100,
    pattern: NOT_BLANK_PATTERN,
    default: null,
  })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  lastName?: string | null;

  @IsOptional()
  @ApiCountryCode()
  country?: string | null;

  @ValidateIf(present)
  @ApiAddress({ example: { line1: '510 Townsend St', city: 'San Francisco', postalCode: '94103' } })
  address?: AddressDto;

  @ApiPropertyOptional({ type: String, nullable: true, example: '+1 415 555 0100', maxLength: 50 })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(50)
  phone?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    writeOnly: true,
    example: '078-05-1120',
    maxLength: 64,
    description: 'Write-only: stored, never returned and never logged',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  SocialNumber?: string | null;

  @ApiPropertyOptional({ example: false, default: false })
  @ValidateIf(present)
  @IsBoolean()
  liveMode?: boolean;

  @ApiPropertyOptional({ example: false, default: false })
  @ValidateIf(present)
  @IsBoolean()
  verified?: boolean;

  @ApiPropertyOptional({ example: false, default: false })
  @ValidateIf(present)
  @IsBoolean()
  Taxable?: boolean;

  @ApiPropertyOptional({ example: 0, default: 0, minimum: -BALANCE_LIMIT, maximum: BALANCE_LIMIT })
  @ValidateIf(present)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-BALANCE_LIMIT)
  @Max(BALANCE_LIMIT)
  balance?: number;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    enum: [null],
    example: null,
    default: null,
    description:
      'Must be null or left out on create: a new customer has no cards yet. The first card added ' +
      '(POST /v1/cards) becomes the default; POST /v1/cards/{id}/default or an update changes it.',
  })
  @IsOptional()
  @IsIn([null], { message: 'defaultMethod must be null on create: a new customer has no cards yet' })
  defaultMethod?: null;
}
