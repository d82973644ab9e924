import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import { CURRENCY_CODES } from '../../common/money/currencies';
import { DEFAULT_SUMMARY_DAYS, MAX_SUMMARY_DAYS, parseCalendarDate } from '../payments-summary';

const lower = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value);

/** A `YYYY-MM-DD` date that exists on the calendar. */
function IsCalendarDate(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isCalendarDate',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => parseCalendarDate(value) !== null,
        defaultMessage: (args: ValidationArguments) => `${args.property} must be a date as YYYY-MM-DD`,
      },
    });
  };
}

export class PaymentSummaryQuery {
  @ApiProperty({
    example: 'usd',
    description: 'ISO 4217 code, in any case: only payments in this currency count',
    pattern: '^[A-Za-z]{3}$',
    maxLength: 3,
  })
  @Transform(lower)
  @IsString()
  @IsIn(CURRENCY_CODES, { message: 'currency must be an ISO 4217 currency code' })
  currency: string;

  @ApiPropertyOptional({
    type: String,
    format: 'date',
    maxLength: 10,
    example: '2026-11-01',
    description: `First day (UTC), inclusive. Default: ${DEFAULT_SUMMARY_DAYS - 1} days before \`to\`. At most ${MAX_SUMMARY_DAYS} days before \`to\`, never after it.`,
  })
  @IsOptional()
  @IsCalendarDate()
  from?: string;

  @ApiPropertyOptional({
    type: String,
    format: 'date',
    maxLength: 10,
    example: '2026-11-23',
    description: 'Last day (UTC), inclusive. Default: today (UTC).',
  })
  @IsOptional()
  @IsCalendarDate()
  to?: string;
}
