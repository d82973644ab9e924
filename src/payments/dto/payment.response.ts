import { ApiProperty } from '@nestjs/swagger';
import { PageMetaDto } from '../../common/paging/finance-list.query';
import { PAYMENT_STATUSES, type PaymentStatus } from '../payment.schema';

export class PaymentResponse {
  @ApiProperty({ example: '6650c0ffee0000000000a101' })
  id: string;

  @ApiProperty({ example: 19.99, description: 'In major units, exact to the currency decimals' })
  amount: number;

  @ApiProperty({ example: 'usd', description: 'ISO 4217, lower case' })
  currency: string;

  @ApiProperty({ example: '6650c0ffee0000000000f001', description: 'Id of the paying customer' })
  customer: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'Id of the receiving customer, null when unset',
  })
  reciver: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Order #1042' })
  description: string | null;

  @ApiProperty({
    enum: PAYMENT_STATUSES,
    example: 'succeeded',
    description:
      '`requires_confirmation` (created without `confirm: true`), `requires_payment_method` (confirmed, no default card), ' +
      '`succeeded`, `failed` (the card declined: see `failureCode`), `partially_refunded`, `refunded`',
  })
  status: PaymentStatus;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'Why the charge failed (`card_declined`, `insufficient_funds`, `lost_card`, ...); null otherwise',
  })
  failureCode: string | null;

  @ApiProperty({ example: 0, description: 'Refunded so far, in major units' })
  amountRefunded: number;

  @ApiProperty({ format: 'date-time', example: '2024-05-24T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2024-05-24T10:00:00.000Z' })
  updatedAt: string;
}

export class PaymentListResponse extends PageMetaDto {
  @ApiProperty({ type: [PaymentResponse] })
  data: PaymentResponse[];
}
