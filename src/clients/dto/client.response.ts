import { ApiProperty } from '@nestjs/swagger';

export class ClientResponse {
  @ApiProperty({ example: '6650c0ffee0000000000d001' })
  _id: string;

  @ApiProperty({ example: 'Acme Media' })
  name: string;

  @ApiProperty({ example: 'contact@acme.example', format: 'email' })
  email: string;

  @ApiProperty({ type: String, nullable: true, example: '+44 20 7946 0000', description: 'null when never set' })
  phone: string | null;

  @ApiProperty({ type: String, isArray: true, example: ['6650c0ffee0000000000b001'] })
  projectIds: string[];

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
