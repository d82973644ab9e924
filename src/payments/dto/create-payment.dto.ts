import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsMongoId, IsOptional, IsString, MaxLength } from 'class-validator';
import { CURRENCY_CODES } from '../../common/money/currencies';
import { MAX_MAJOR_UNITS } from '../../common/money/money';
import { IsAmount } from './amount.validator';
import { OBJECT_ID_PATTERN } from '../../common/pipes/object-id';

export const DESCRIPTION_MAX_LENGTH = 1000;

/** `99,999,999`, grouped by hand: `toLocaleString` would map ICU's locale data (megabytes) into the process at import. */
const MAX_AMOUNT_TEXT = String(MAX_MAJOR_UNITS).replace(/\B(?=(\d{3})+$)/g, ',');

const lower = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value);

export class CreatePaymentDto {
  @ApiProperty({
    example: 19.99,
    exclusiveMinimum: true,
    minimum: 0,
    maximum: MAX_MAJOR_UNITS,
    description:
      'In major units (19.99 USD). More than zero, at most the decimals of the currency (0 for JPY, KRW, VND, CLP...; ' +
      `3 for BHD, JOD, KWD, OMR, TND; 2 for the others) and at most ${MAX_AMOUNT_TEXT}.`,
  })
  @IsAmount('currency')
  amount: number;

  @ApiProperty({
    example: 'usd',
    description: 'ISO 4217 code, in any case; stored and returned in lower case',
    pattern: '^[A-Za-z]{3}$',
    maxLength: 3,
  })
  @Transform(lower)
  @IsString()
  @IsIn(CURRENCY_CODES, { message: 'currency must be an ISO 4217 currency code' })
  currency: string;

  @ApiProperty({ description: 'Id of the paying customer (must exist)', pattern: OBJECT_ID_PATTERN })
  @IsMongoId({ message: 'customer must be a valid id' })
  customer: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description:
      'Id of the receiving customer (spelled as in the original interface): must exist and differ from `customer`',
    pattern: OBJECT_ID_PATTERN,
  })
  @IsOptional()
  @IsMongoId({ message: 'reciver must be a valid id' })
  reciver?: string | null;

  @ApiPropertyOptional({
    example: true,
    default: false,
    description:
      "`true` charges the customer's default card at once; otherwise the payment waits in `requires_confirmation`",
  })
  @IsOptional()
  @IsBoolean()
  confirm?: boolean;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Order #1042', maxLength: DESCRIPTION_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(DESCRIPTION_MAX_LENGTH)
  description?: string | null;
}
