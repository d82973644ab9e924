import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsEmail,
  IsIn,
  IsISO31661Alpha2,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { ApiFlatJsonObject } from '../../common/validators/flat-json-object';

/** Optional, but when present it must be a real value: `null` is validated (and refused) like any other. */
const present = (_object: object, value: unknown) => value !== undefined;
const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const upper = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toUpperCase() : value);

export const BALANCE_LIMIT = 1e12;

export class CreateCustomerDto {
  @ApiProperty({ example: 'jenny.rosen@example.com', format: 'email', maxLength: 254 })
  @Transform(trim)
  @IsEmail({}, { message: 'email must be an email' })
  @MaxLength(254)
  email: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Jenny', maxLength: 100, default: null })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  firstName?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Rosen', maxLength: 100, default: null })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  lastName?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'US',
    pattern: '^[A-Za-z]{2}$',
    default: null,
    description: 'ISO 3166-1 alpha-2 country code, any case; stored and returned in upper case',
  })
  @IsOptional()
  @Transform(upper)
  @IsISO31661Alpha2({ message: 'country must be an ISO 3166-1 alpha-2 country code' })
  country?: string | null;

  @ValidateIf(present)
  @ApiFlatJsonObject({ example: { line1: '510 Townsend St', city: 'San Francisco', postalCode: '94103' } })
  address?: Record<string, unknown>;

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
