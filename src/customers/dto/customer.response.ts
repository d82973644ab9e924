import { ApiProperty } from '@nestjs/swagger';
import { PageMetaDto } from '../../common/paging/finance-list.query';

/** The customer as the create response shows it. */
export class CustomerCreatedData {
  @ApiProperty({ example: '6650c0ffee0000000000f001' })
  id: string;

  @ApiProperty({
    type: String,
    nullable: true,
    format: 'email',
    example: 'jenny.rosen@example.com',
    description: 'null only for a customer created implicitly with a card',
  })
  email: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Jenny' })
  firstName: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Rosen' })
  lastName: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { line1: '510 Townsend St', city: 'San Francisco' },
  })
  address: Record<string, unknown>;

  @ApiProperty({ type: String, nullable: true, example: 'US', description: 'ISO 3166-1 alpha-2' })
  country: string | null;

  @ApiProperty({ example: 0 })
  balance: number;

  @ApiProperty({ example: false })
  verified: boolean;

  @ApiProperty({ example: false })
  liveMode: boolean;

  @ApiProperty({ format: 'date-time', example: '2024-05-24T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2024-05-24T10:00:00.000Z' })
  updatedAt: string;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'Id of the default card, null when none' })
  defaultMethod: string | null;
}

/** The customer as reads and updates show it: the create fields plus phone and Taxable. */
export class CustomerResponse extends CustomerCreatedData {
  @ApiProperty({ type: String, nullable: true, example: '+1 415 555 0100' })
  phone: string | null;

  @ApiProperty({ example: false })
  Taxable: boolean;
}

export class CustomerCreatedEnvelope {
  @ApiProperty({ type: CustomerCreatedData })
  data: CustomerCreatedData;
}

export class CustomerEnvelope {
  @ApiProperty({ type: CustomerResponse })
  data: CustomerResponse;
}

export class CustomerListResponse extends PageMetaDto {
  @ApiProperty({ type: [CustomerResponse] })
  data: CustomerResponse[];
}

export class CustomerDeletedResponse {
  @ApiProperty({ example: '6650c0ffee0000000000f001' })
  id: string;

  @ApiProperty({ example: true, enum: [true] })
  deleted: true;

  @ApiProperty({ example: 'Customer deleted' })
  message: string;
}
