import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches, ValidateIf } from 'class-validator';
import { EXP_MONTH_PATTERN, EXP_YEAR_PATTERN } from './create-card.dto';

const present = (_object: object, value: unknown) => value !== undefined;

/** Only the expiry can change; the merged month and year must not be in the past. */
export class UpdateCardDto {
  @ApiPropertyOptional({
    example: '12',
    pattern: '^\\d{1,2}$',
    maxLength: 2,
    description: 'Month 1-12; "4" and "04" alike',
  })
  @ValidateIf(present)
  @IsString()
  @Matches(EXP_MONTH_PATTERN, { message: 'expMonth must be a month from 1 to 12 ("4" or "04")' })
  expMonth?: string;

  @ApiPropertyOptional({
    example: '2031',
    pattern: '^(\\d{2}|\\d{4})$',
    maxLength: 4,
    description: '2 digits (20yy) or 4 digits',
  })
  @ValidateIf(present)
  @IsString()
  @Matches(EXP_YEAR_PATTERN, { message: 'expYear must be a year of 2 or 4 digits' })
  expYear?: string;
}
