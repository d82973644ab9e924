import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptionalNotNull } from '../../common/validators/is-optional-not-null';
import { IsAmount } from './amount.validator';

export class RefundPaymentDto {
  @ApiPropertyOptional({
    example: 5,
    exclusiveMinimum: true,
    minimum: 0,
    description:
      "In the payment's major units, with at most its currency's decimals. Omitted: everything not yet refunded. " +
      'More than what is left is 400.',
  })
  @IsOptionalNotNull()
  @IsAmount()
  amount?: number;
}
