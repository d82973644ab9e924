import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsDateString,
  IsIn,
  IsOptional,
  MaxLength,
} from 'class-validator';
import { NotBlankText } from '../../common/validators/trimmed-text';
import { API_NAMES, type ApiName } from '../../tenancy/api-names';
import { IsOptionalNotNull } from '../../common/validators/is-optional-not-null';
import { API_KEY_KINDS, type ApiKeyKind } from '../api-key-secret';

export class CreateApiKeyDto {
  @NotBlankText(100, 'Checkout server')
  name: string;

  @ApiPropertyOptional({
    enum: API_KEY_KINDS,
    default: 'secret',
    description:
      'secret (`sk_test_...`, the default): admin rights over the data APIs of its scopes. publishable (`pk_test_...`): read-only, ' +
      'the `/viewer` routes only (403 elsewhere), safe to ship in an app; it takes no scopes.',
  })
  @IsOptionalNotNull()
  @IsIn(API_KEY_KINDS, { message: `kind must be one of: ${API_KEY_KINDS.join(', ')}` })
  kind?: ApiKeyKind;

  @ApiPropertyOptional({
    type: [String],
    enum: API_NAMES,
    uniqueItems: true,
    minItems: 1,
    maxItems: API_NAMES.length,
    nullable: true,
    example: ['customers', 'cards', 'payments'],
    description:
      'The APIs the key may call, each enabled in the project (400 otherwise). Left out or null: every API the project enables, now or later.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1, { message: 'scopes must name at least one API (leave it out for every enabled API)' })
  @ArrayMaxSize(API_NAMES.length)
  @ArrayUnique({ message: 'scopes must not repeat an API' })
  @IsIn(API_NAMES, { each: true, message: `each value in scopes must be one of: ${API_NAMES.join(', ')}` })
  scopes?: ApiName[] | null;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    maxLength: 40,
    nullable: true,
    example: '2030-01-01T00:00:00.000Z',
    description: 'When the key stops working; must be in the future. Left out or null: never.',
  })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'expiresAt must be an ISO 8601 date-time' })
  @MaxLength(40)
  expiresAt?: string | null;
}
