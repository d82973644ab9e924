import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { IsOptionalNotNull } from '../../common/validators/is-optional-not-null';

export const MAX_ROLL_GRACE_HOURS = 168;

export class RollApiKeyDto {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: MAX_ROLL_GRACE_HOURS,
    default: 0,
    example: 24,
    description: 'How many more hours the old key keeps working (0 to 168, whole hours; default 0: it stops now).',
  })
  @IsOptionalNotNull()
  @IsInt({ message: 'expiresInHours must be a whole number of hours' })
  @Min(0)
  @Max(MAX_ROLL_GRACE_HOURS)
  expiresInHours?: number;
}
