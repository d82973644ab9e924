import { ApiProperty } from '@nestjs/swagger';
import { CHANNEL_ROLES } from '../collaborator.schema';

export class CollaboratorResponse {
  @ApiProperty({ example: '6650c0ffee0000000000e001' })
  _id: string;

  @ApiProperty({ example: '6650c0ffee0000000000b001' })
  channelId: string;

  @ApiProperty({ example: '6650c0ffee0000000000a001', description: 'A member of the account' })
  userId: string;

  @ApiProperty({ enum: CHANNEL_ROLES, example: 'editor' })
  role: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'When the role ends; null: never',
  })
  expiresAt: string | null;

  @ApiProperty({ format: 'date-time', example: '2024-05-24T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2024-05-24T10:00:00.000Z' })
  updatedAt: string;
}

export class CollaboratorRemovedResponse {
  @ApiProperty({ example: 'Collaborator removed' })
  message: string;
}
