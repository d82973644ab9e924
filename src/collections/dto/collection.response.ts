import { ApiProperty } from '@nestjs/swagger';

export class CollectionResponse {
  @ApiProperty({ example: '6650c0ffee0000000000c001' })
  _id: string;

  @ApiProperty({ example: 'Starter' })
  name: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Entry-level bundle of endpoints',
    description: 'null when never set',
  })
  description: string | null;

  @ApiProperty({ type: 'integer', nullable: true, example: 12, description: 'null when never set' })
  numberOfClients: number | null;

  @ApiProperty({ type: 'integer', nullable: true, example: 340, description: 'null when never set' })
  numberOfUsers: number | null;

  @ApiProperty({ type: String, nullable: true, example: 'internal analytics', description: 'null when never set' })
  usage: string | null;

  @ApiProperty({ type: Number, nullable: true, example: 49.99, description: 'null when never set' })
  pricing: number | null;

  @ApiProperty({ type: 'integer', isArray: true, example: [1, 2, 3] })
  endpoints: number[];

  @ApiProperty({ format: 'date-time', example: '2024-05-24T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2024-05-24T10:00:00.000Z' })
  updatedAt: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'null on live records',
  })
  deletedAt: string | null;
}
