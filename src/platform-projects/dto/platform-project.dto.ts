import { ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsIn } from 'class-validator';
import { IsOptionalNotNull } from '../../common/validators/is-optional-not-null';
import { NotBlankText } from '../../common/validators/trimmed-text';
import { API_NAMES, type ApiName } from '../../tenancy/api-names';

export class CreatePlatformProjectDto {
  @NotBlankText(100, 'Mobile app')
  name: string;

  @ApiPropertyOptional({
    type: [String],
    enum: API_NAMES,
    uniqueItems: true,
    maxItems: API_NAMES.length,
    example: ['customers', 'cards', 'payments'],
    description:
      'The APIs this project serves; default: all of them. A disabled API keeps its data and answers 403 until enabled again.',
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(API_NAMES.length)
  @ArrayUnique({ message: 'enabledApis must not repeat an API' })
  @IsIn(API_NAMES, { each: true, message: `each value in enabledApis must be one of: ${API_NAMES.join(', ')}` })
  enabledApis?: ApiName[];
}

export class UpdatePlatformProjectDto extends PartialType(CreatePlatformProjectDto, { skipNullProperties: false }) {}
