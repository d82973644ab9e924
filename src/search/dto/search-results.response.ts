import { ApiProperty } from '@nestjs/swagger';
import { CustomerResponse } from '../../customers/dto/customer.response';
import { PaymentResponse } from '../../payments/dto/payment.response';
import { ProjectResponse } from '../../projects/dto/project.response';
import { ViewerProjectResponse } from '../../sharing/dto/viewer-project.response';

/** What every search answers beside its `data`, in Stripe's shape. */
export class SearchPageMeta {
  @ApiProperty({ description: 'Whether more results follow this page' })
  has_more: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '10',
    description: 'Send as `page` with the same query for the next page; null on the last one',
  })
  next_page: string | null;

  @ApiProperty({ type: 'integer', example: 1, description: 'How many results match in all' })
  total_count: number;
}

export class ProjectSearchResponse extends SearchPageMeta {
  @ApiProperty({ type: [ProjectResponse] })
  data: ProjectResponse[];
}

export class ViewerSearchResponse extends SearchPageMeta {
  @ApiProperty({ type: [ViewerProjectResponse] })
  data: ViewerProjectResponse[];
}

export class CustomerSearchResponse extends SearchPageMeta {
  @ApiProperty({ type: [CustomerResponse] })
  data: CustomerResponse[];
}

export class PaymentSearchResponse extends SearchPageMeta {
  @ApiProperty({ type: [PaymentResponse] })
  data: PaymentResponse[];
}
