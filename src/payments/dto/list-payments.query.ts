import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsMongoId, IsOptional } from 'class-validator';
import { FinanceListQuery } from '../../common/paging/finance-list.query';
import { PAYMENT_STATUSES, type PaymentStatus } from '../payment.schema';
import { OBJECT_ID_PATTERN } from '../../common/pipes/object-id';

export class ListPaymentsQuery extends FinanceListQuery {
  @ApiPropertyOptional({ description: "Only this customer's payments", pattern: OBJECT_ID_PATTERN })
  @IsOptional()
  @IsMongoId({ message: 'customer must be a valid id' })
  customer?: string;

  @ApiPropertyOptional({ enum: PAYMENT_STATUSES, description: 'Only payments in this status' })
  @IsOptional()
  @IsIn(PAYMENT_STATUSES)
  status?: PaymentStatus;
}
