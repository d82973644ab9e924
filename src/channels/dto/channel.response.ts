import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class MembershipTierResponse {
  @ApiProperty({ example: 'Supporter' })
  name: string;

  @ApiPropertyOptional({ example: 'Early access to every episode', description: 'Absent when the tier has none' })
  description?: string;

  @ApiProperty({ example: 4.99, minimum: 0 })
  price: number;

  @ApiPropertyOptional({ type: [String], example: ['Early access'], description: 'Absent when the tier has none' })
  features?: string[];
}

export class ChannelResponse {
  @ApiProperty({ example: '6650c0ffee0000000000b001' })
  _id: string;

  @ApiProperty({ example: '6650c0ffee0000000000c001' })
  clientId: string;

  @ApiProperty({ example: 'Ada Sings' })
  name: string;

  @ApiProperty({ example: 'adasings' })
  username: string;

  @ApiProperty({ example: 'https://cdn.example.com/avatars/ada.png', format: 'uri' })
  avatarUrl: string;

  @ApiProperty({ example: 'creator' })
  role: string;

  @ApiProperty({ type: [String], example: ['6650c0ffee0000000000d001'] })
  projectIds: string[];

  @ApiProperty({ example: false })
  membershipsEnabled: boolean;

  @ApiProperty({ type: [MembershipTierResponse] })
  membershipTiers: MembershipTierResponse[];

  @ApiProperty({ example: false })
  monetizationEnabled: boolean;

  @ApiProperty({ example: 0, minimum: 0 })
  revenue: number;

  @ApiProperty({ format: 'date-time', example: '2024-05-24T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2024-05-24T10:00:00.000Z' })
  updatedAt: string;
}

export class ChannelCreatedResponse {
  @ApiProperty({ example: 'Channel created' })
  message: string;

  @ApiProperty({ example: '6650c0ffee0000000000b001', pattern: '^[0-9a-f]{24}$' })
  id: string;
}

export class ChannelUpdatedResponse {
  @ApiProperty({ example: 'Channel updated' })
  message: string;
}

export class ChannelDeletedResponse {
  @ApiProperty({ example: 'Channel deleted' })
  message: string;
}
