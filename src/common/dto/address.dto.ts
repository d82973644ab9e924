import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsString, MaxLength, ValidateNested } from 'class-validator';
import { IsOptionalNotNull } from '../validators/is-optional-not-null';

/**
 * A postal address. The spec only says "json"; a closed set of fields is what clients can rely on,
 * what a schema can state, and what both MongoDB and FerretDB store alike.
 */
export class AddressDto {
  @ApiPropertyOptional({ example: '510 Townsend St', maxLength: 200 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(200)
  line1?: string;

  @ApiPropertyOptional({ example: 'Suite 300', maxLength: 200 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(200)
  line2?: string;

  @ApiPropertyOptional({ example: 'San Francisco', maxLength: 200 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(200)
  city?: string;

  @ApiPropertyOptional({ example: 'CA', maxLength: 200 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(200)
  state?: string;

  @ApiPropertyOptional({ example: '94103', maxLength: 20 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(20)
  postalCode?: string;

  @ApiPropertyOptional({
    example: 'US',
    maxLength: 100,
    description: 'Country name or code, as written on the address',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(100)
  country?: string;
}

/** Swagger schema and nested validation of an address property; unknown address fields are 400. */
export function ApiAddress(options: { example?: Partial<AddressDto> } = {}): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ type: AddressDto, required: false, example: options.example }),
    IsObject({ message: '$property must be an object' }),
    ValidateNested(),
    Type(() => AddressDto),
  );
}

/** A plain object with only the fields that were sent, for storage. */
export function toAddress(address: AddressDto): Record<string, string> {
  return Object.fromEntries(Object.entries(address).filter(([, value]) => value !== undefined)) as Record<
    string,
    string
  >;
}
