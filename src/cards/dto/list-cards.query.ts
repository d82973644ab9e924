import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsMongoId } from 'class-validator';
import { FinanceListQuery } from '../../common/paging/finance-list.query';

export class ListCardsQuery extends FinanceListQuery {
  @ApiProperty({ example: '6650c0ffee0000000000f001', pattern: '^[0-9a-fA-F]{24}$', description: 'Id of the customer whose cards to list (required)' })
  @IsDefined({ message: 'customer is required' })
  @IsMongoId({ message: 'customer must be a valid id' })
  customer: string;
}
