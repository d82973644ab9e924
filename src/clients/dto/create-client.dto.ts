import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsEmail, IsMongoId, IsString, MaxLength } from 'class-validator';
import { IsOptionalNotNull } from '../../common/validators/is-optional-not-null';
import { OBJECT_ID_PATTERN } from '../../common/pipes/object-id';
import { NotBlankText, trimWithin } from '../../common/validators/trimmed-text';

const NAME_MAX = 200;
const EMAIL_MAX = 254;

export class CreateClientDto {
  @NotBlankText(NAME_MAX, 'Acme Media')
  name: string;

  @ApiProperty({ example: 'contact@acme.example', format: 'email', maxLength: EMAIL_MAX })
  @Transform(trimWithin(EMAIL_MAX))
  @IsEmail({}, { message: 'email must be an email' })
  @MaxLength(EMAIL_MAX)
  email: string;

  @ApiPropertyOptional({ example: '+44 20 7946 0000', maxLength: 50 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(50)
  phone?: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', pattern: OBJECT_ID_PATTERN },
    maxItems: 1000,
    description:
      "Ids of content projects of the request's platform project; any other id (another tenant's included) is 400",
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsMongoId({ each: true, message: 'each value in projectIds must be a valid id' })
  projectIds?: string[];
}
