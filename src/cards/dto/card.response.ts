import { ApiProperty } from '@nestjs/swagger';
import { PageMetaDto } from '../../common/paging/finance-list.query';
import { CARD_BRANDS, CARD_FUNDING } from '../test-cards';

export class CardResponse {
  @ApiProperty({ example: '6650c0ffee0000000000e001' })
  id: string;

  @ApiProperty({ example: '6650c0ffee0000000000f001', description: 'Id of the owning customer' })
  customer: string;

  @ApiProperty({ enum: CARD_BRANDS, example: 'visa' })
  brand: string;

  @ApiProperty({ enum: CARD_FUNDING, example: 'credit' })
  funding: string;

  @ApiProperty({ example: 'US', description: 'Issuing country, ISO 3166-1 alpha-2' })
  country: string;

  @ApiProperty({ example: '4242', description: 'Last four digits of the number (the number itself is never returned)' })
  last4: string;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: 12,
    example: 4,
    description: 'Normalised: "04" and "4" are both 4',
  })
  expMonth: number;

  @ApiProperty({ type: 'integer', example: 2030, description: 'Four digits: "30" is 2030' })
  expYear: number;

  @ApiProperty({
    example: '3f6c0e5c2e1b7a9d4f8e2b1c6a5d9e0f7b3c2a1d8e4f6b9c0a7d5e3f1b2c4a6d',
    description: 'Keyed hash of the card number: the same number gives the same fingerprint',
  })
  fingerprint: string;

  @ApiProperty({ example: true, description: "Whether this card is its customer's defaultMethod" })
  isDefault: boolean;

  @ApiProperty({ format: 'date-time', example: '2024-05-24T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2024-05-24T10:00:00.000Z' })
  updatedAt: string;
}

export class CardEnvelope {
  @ApiProperty({ type: CardResponse })
  data: CardResponse;
}

export class CardListResponse extends PageMetaDto {
  @ApiProperty({ type: [CardResponse] })
  data: CardResponse[];
}

export class CardDeletedResponse {
  @ApiProperty({ example: '6650c0ffee0000000000e001' })
  id: string;

  @ApiProperty({ example: true, enum: [true] })
  deleted: true;

  @ApiProperty({ example: 'Card deleted' })
  message: string;
}
