import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsEmail, IsMongoId, IsNotEmpty, IsString, MaxLength, ValidateIf } from 'class-validator';

/** Optional, but when present it must be a real value: `null` is validated (and refused) like any other. */
const present = (_object: object, value: unknown) => value !== undefined;
const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class CreateClientDto {
  @ApiProperty({ example: 'Acme Media', minLength: 1, maxLength: 200 })
  @Transform(trim)
  @IsString()
  @IsNotEmpty({ message: 'name must not be empty' })
  @MaxLength(200)
  name: string;

  @ApiProperty({ example: 'contact@acme.example', format: 'email', maxLength: 254 })
  @Transform(trim)
  @IsEmail({}, { message: 'email must be an email' })
  @MaxLength(254)
  email: string;

  @ApiPropertyOptional({ example: '+44 20 7946 0000', maxLength: 50 })
  @ValidateIf(present)
  @IsString()
  @MaxLength(50)
  phone?: string;

  @ApiPropertyOptional({
    type: String,
    isArray: true,
    maxItems: 1000,
    example: ['6650c0ffee0000000000b001'],
    description: 'Project identifiers (ObjectId hex strings)',
  })
  @ValidateIf(present)
  @IsArray()
  @ArrayMaxSize(1000)
  @IsMongoId({ each: true, message: 'each value in projectIds must be a valid id' })
  projectIds?: string[];
}
