import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsMongoId } from 'class-validator';
import { FinanceListQuery } from '../../common/paging/finance-list.query';
import { OBJECT_ID_PATTERN } from '../../common/pipes/object-id';

export class ListCardsQuery extends FinanceListQuery {
  @ApiProperty({ pattern: OBJECT_ID_PATTERN, description: 'Id of the customer whose cards to list (required)' })
  @IsDefined({ message: 'customer is required' })
  @IsMongoId({ message: 'customer must be a valid id' })
  customer: string;
}
