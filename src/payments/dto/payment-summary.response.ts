import { ApiProperty } from '@nestjs/swagger';

export class PaymentSummaryTotals {
  @ApiProperty({ example: 120.5, description: 'Sum of the payments charged, in major units' })
  gross: number;

  @ApiProperty({ example: 20, description: 'Sum refunded of those payments so far, in major units' })
  refunded: number;

  @ApiProperty({ example: 100.5, description: '`gross` minus `refunded`, in major units' })
  net: number;

  @ApiProperty({ type: 'integer', example: 3, description: 'Number of payments charged' })
  count: number;
}

export class PaymentSummaryDay extends PaymentSummaryTotals {
  @ApiProperty({ format: 'date', example: '2026-11-01', description: 'The UTC day the payments were created' })
  date: string;
}

export class PaymentSummaryResponse {
  @ApiProperty({ example: 'usd', description: 'ISO 4217, lower case' })
  currency: string;

  @ApiProperty({ format: 'date', example: '2026-11-01', description: 'First day of the period (UTC), inclusive' })
  from: string;

  @ApiProperty({ format: 'date', example: '2026-11-23', description: 'Last day of the period (UTC), inclusive' })
  to: string;

  @ApiProperty({
    type: [PaymentSummaryDay],
    description: 'Every day of the period, oldest first; days without payments are zeros',
  })
  days: PaymentSummaryDay[];

  @ApiProperty({ type: PaymentSummaryTotals, description: 'The whole period' })
  totals: PaymentSummaryTotals;
}
